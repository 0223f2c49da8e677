// The records of one export file as a stream, in any shape mongoexport writes: JSON lines, --jsonArray or --pretty.
import { type ReadStream, createReadStream } from 'node:fs'
import { open, stat } from 'node:fs/promises'
import { createInterface } from 'node:readline'
import { type RawRecord, splitJson } from './json-splitter.js'

export type SourceFormat = 'lines' | 'array' | 'pretty'

/** Looks at the start of the file: '[' is an array, a line holding only '{' is a pretty sequence. */
export async function detectFormat(file: string): Promise<SourceFormat> {
  const handle = await open(file, 'r')
  try {
    const buffer = Buffer.alloc(64 * 1024)
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
    const head = buffer.subarray(0, bytesRead).toString('utf8').replace(/^\uFEFF/, '').trimStart()
    if (head.startsWith('[')) return 'array'
    if (/^\{\s*\n/.test(head)) return 'pretty'
    return 'lines'
  } finally {
    await handle.close()
  }
}

export async function openSource(file: string) {
  const format = await detectFormat(file)
  const { size } = await stat(file)
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 256 * 1024 })
  return {
    format,
    totalBytes: size,
    bytesRead: () => stream.bytesRead,
    records: () => (format === 'lines' ? lineRecords(stream) : splitJson(stream as AsyncIterable<string>, format === 'array')),
  }
}

async function* lineRecords(stream: ReadStream): AsyncGenerator<RawRecord> {
  let line = 0
  let index = 0
  try {
    for await (const text of createInterface({ input: stream, crlfDelay: Infinity })) {
      line++
      if (text.trim() === '') continue // trim() also drops a byte order mark
      yield { line, index: index++, text: line === 1 ? text.replace(/^\uFEFF/, '') : text }
    }
  } finally {
    stream.destroy() // also when the caller stops early (--strict)
  }
}
