// Reads the records of one export file as a stream, whatever shape mongoexport gave it: JSON
// lines (the default, read with readline), a JSON array (--jsonArray) or concatenated indented
// documents (--pretty), told apart by the first characters. Memory holds one record at a time.
import { createReadStream } from 'node:fs'
import { open, stat } from 'node:fs/promises'
import { createInterface } from 'node:readline'
import { JsonSplitter, type RawRecord } from './json-splitter.js'

export type SourceFormat = 'lines' | 'array' | 'pretty'

export interface Source {
  format: SourceFormat
  totalBytes: number
  /** Bytes read from the file so far (for progress). */
  bytesRead: () => number
  records: () => AsyncGenerator<RawRecord>
}

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

export async function openSource(file: string): Promise<Source> {
  const format = await detectFormat(file)
  const { size } = await stat(file)
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 256 * 1024 })
  return {
    format,
    totalBytes: size,
    bytesRead: () => stream.bytesRead,
    records: format === 'lines' ? () => lineRecords(stream) : () => splitRecords(stream, format === 'array'),
  }
}

async function* lineRecords(stream: NodeJS.ReadableStream & { destroy(): void }): AsyncGenerator<RawRecord> {
  const lines = createInterface({ input: stream, crlfDelay: Infinity })
  let line = 0
  let index = 0
  try {
    for await (const text of lines) {
      line++
      const trimmed = line === 1 ? text.replace(/^\uFEFF/, '') : text
      if (trimmed.trim() === '') continue
      yield { line, index: index++, text: trimmed }
    }
  } finally {
    stream.destroy() // also when the caller stops early (--strict)
  }
}

async function* splitRecords(stream: NodeJS.ReadableStream & { destroy(): void }, array: boolean): AsyncGenerator<RawRecord> {
  const splitter = new JsonSplitter(array)
  try {
    for await (const chunk of stream) {
      for (const record of splitter.push(chunk as string)) {
        yield record
        if (record.fatal) return
      }
    }
    yield* splitter.end()
  } finally {
    stream.destroy()
  }
}
