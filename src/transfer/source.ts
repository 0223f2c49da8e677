// The records of one export file as a stream, in any shape mongoexport writes: JSON lines, --jsonArray or --pretty.
import { type ReadStream, createReadStream } from 'node:fs'
import { open, stat } from 'node:fs/promises'
import { type RawRecord, splitJson } from './json-splitter.js'

export type SourceFormat = 'lines' | 'array' | 'pretty'

/** Looks at the start of the file: '[' is an array, a line holding only '{' is a pretty sequence. */
export async function detectFormat(file: string): Promise<SourceFormat> {
  const handle = await open(file, 'r')
  try {
    const buffer = Buffer.alloc(64 * 1024)
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
    const head = buffer
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trimStart()
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
    records: () =>
      format === 'lines' ? lineRecords(stream) : splitJson(stream as AsyncIterable<string>, format === 'array'),
  }
}

async function* lineRecords(stream: ReadStream): AsyncGenerator<RawRecord> {
  let line = 0
  let index = 0
  try {
    for await (const text of linesOf(stream as AsyncIterable<string>)) {
      line++
      if (text.trim() === '') continue // trim() also drops a byte order mark
      yield { line, index: index++, text: line === 1 ? text.replace(/^\uFEFF/, '') : text }
    }
  } finally {
    stream.destroy() // also when the caller stops early (--strict)
  }
}

/**
 * The lines of a text, ended by \n, \r\n or \r. Not node:readline: on Node.js 24 and 26 (not 20) it
 * ends a line at U+2028 and U+2029, which JSON.stringify (so the export) writes unescaped inside
 * strings, and a note holding one would be cut in two.
 */
export async function* linesOf(chunks: AsyncIterable<string>): AsyncGenerator<string> {
  let rest = ''
  for await (const chunk of chunks) {
    const text = rest + chunk
    // A final \r may be the first half of \r\n: it waits for the next chunk.
    const end = text.endsWith('\r') ? text.length - 1 : text.length
    const lines = text.slice(0, end).split(/\r\n|\n|\r/)
    rest = lines.pop()! + text.slice(end)
    yield* lines
  }
  if (rest !== '') yield rest.replace(/\r$/, '')
}
