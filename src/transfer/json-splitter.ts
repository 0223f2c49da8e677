// Splits JSON text into its top-level values without parsing them: the elements of one array (--jsonArray) or
// concatenated values (--pretty), each with the line it starts on, so a malformed record is reported by line and
// reading goes on after it. A streaming parser (stream-json) gives no line numbers and stops at the first error.

/** `line` (1-based) where the value starts, `index` (0-based) in the file; `fatal`: nothing can be read past it. */
export type RawRecord = { line: number; index: number; text?: string; error?: string; fatal?: boolean }

/** A longer value is reported instead of buffered (MongoDB documents are at most 16 MiB). */
export const MAX_RECORD_CHARS = 64 * 1024 * 1024

const NEWLINE = 10
const QUOTE = 34
const BACKSLASH = 92
const COMMA = 44
const OPEN_BRACE = 123
const CLOSE_BRACE = 125
const OPEN_BRACKET = 91
const CLOSE_BRACKET = 93

const isSpace = (c: number) => c === 32 || c === NEWLINE || c === 9 || c === 13 || c === 0xfeff

/** `array`: the text is one top-level array; otherwise a sequence of values. Stops after a fatal record. */
export async function* splitJson(
  chunks: AsyncIterable<string>,
  array: boolean,
): AsyncGenerator<RawRecord, void, undefined> {
  const base = array ? 1 : 0
  let line = 1
  let index = 0
  let depth = 0
  let inString = false
  let escaped = false
  let opened = false
  let closed = false
  let inValue = false
  let valueLine = 0
  let kept = ''
  let tooLong = false
  const keep = (text: string) => {
    if (tooLong) return
    tooLong = kept.length + text.length > MAX_RECORD_CHARS
    kept = tooLong ? '' : kept + text
  }
  const finish = (tail: string): RawRecord => {
    keep(tail)
    const record: RawRecord = { line: valueLine, index: index++ }
    if (tooLong) record.error = `record longer than ${MAX_RECORD_CHARS} characters`
    else record.text = kept
    kept = ''
    tooLong = false
    inValue = false
    return record
  }
  const fatal = (error: string): RawRecord => ({ line, index, error, fatal: true })

  for await (const chunk of chunks) {
    let start = 0 // where the current value begins inside this chunk
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i)
      if (c === NEWLINE) line++
      if (inString) {
        if (escaped) escaped = false
        else if (c === BACKSLASH) escaped = true
        else if (c === QUOTE) inString = false
        continue
      }
      if (inValue) {
        if (depth !== base || !(c === COMMA || c === CLOSE_BRACKET || (!array && isSpace(c)))) {
          if (c === QUOTE) inString = true
          else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++
          else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && depth > base) {
            depth--
            // A sequence's object or array ends with its closing bracket.
            if (!array && depth === 0) yield finish(chunk.slice(start, i + 1))
          }
          continue
        }
        // The separator or the array's end is not part of the value: it is looked at below.
        yield finish(chunk.slice(start, i))
      }
      if (isSpace(c)) continue
      if (array && !opened) {
        if (c !== OPEN_BRACKET) return yield fatal('the file does not start with "["')
        opened = true
        depth = 1
        continue
      }
      if (array && closed) return yield fatal('text after the end of the array')
      if (array && c === COMMA) continue
      if (array && c === CLOSE_BRACKET) {
        closed = true
        depth = 0
        continue
      }
      inValue = true
      valueLine = line
      start = i
      if (c === QUOTE) inString = true
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++
    }
    if (inValue) keep(chunk.slice(start))
  }
  if (inValue) {
    // A value whose brackets and quotes are all closed is complete, even if nothing follows it.
    if (inString || depth > base) return yield fatal('the file ends inside a record (truncated?)')
    yield finish('')
  }
  if (array && opened && !closed) yield fatal('the file ends before the array is closed (truncated?)')
}
