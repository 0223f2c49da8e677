// What every file of an export shares: the store read in keyset pages, each page rendered as one string of
// mongoexport's JSON lines or array, and the text written with backpressure to a file or standard output.
import { createWriteStream } from 'node:fs'
import { Readable, type Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { escapeJsonForTerminal } from '../unicode.js'

export type ExportFormat = 'lines' | 'array'
export const PAGE_SIZE = 1000

/** Keyset pages, each after the last record of the one before. */
export async function* paged<T>(page: (after: T | undefined) => Promise<T[]>): AsyncGenerator<T[]> {
  let after: T | undefined
  for (;;) {
    const records = await page(after)
    if (records.length === 0) return
    yield records
    after = records[records.length - 1]
  }
}

/** One string per page: fewer, larger writes. */
export async function* render<T>(
  pages: AsyncIterable<T[]>,
  toText: (record: T) => string,
  format: ExportFormat,
  count: () => void,
): AsyncGenerator<string> {
  let first = true
  if (format === 'array') yield '['
  for await (const records of pages) {
    let text = ''
    for (const record of records) {
      if (format === 'array') text += first ? toText(record) : `,\n${toText(record)}`
      else text += `${toText(record)}\n`
      first = false
      count()
    }
    yield escapeJsonForTerminal(text)
  }
  if (format === 'array') yield ']\n'
}

/** Writes the text to `target`, a file path or '-' for standard output. */
export async function write(target: string, chunks: AsyncIterable<string>): Promise<void> {
  const source = Readable.from(chunks)
  if (target === '-') await pipeline(source, process.stdout as Writable, { end: false })
  else await pipeline(source, createWriteStream(target))
}
