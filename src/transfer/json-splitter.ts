// Splits a stream of JSON text into its top-level values without parsing them: the elements of
// one top-level array (`mongoexport --jsonArray`, pretty or not) or a sequence of concatenated
// values (`mongoexport --pretty`). Each value comes out as its own text with the line it starts
// on and its position, and is then parsed alone, so memory holds one record at a time, a
// malformed record can be reported by line and skipped, and reading goes on after it.
// Why not a streaming JSON parser library (stream-json): its tokens carry no line numbers and a
// syntax error ends the whole stream, and both of those are what the import must do better.

export interface RawRecord {
  /** 1-based line where the value starts. */
  line: number
  /** 0-based position of the value in the array or sequence. */
  index: number
  /** The value's JSON text, or why there is none. */
  text?: string
  error?: string
  /** The text cannot be read past this point. */
  fatal?: boolean
}

/** A value longer than this is reported as an error instead of being buffered (MongoDB documents are at most 16 MiB). */
export const MAX_RECORD_CHARS = 64 * 1024 * 1024

// Character codes looked at by the splitter.
const Ch = {
  Newline: 10,
  Space: 32,
  Tab: 9,
  Cr: 13,
  Quote: 34,
  Backslash: 92,
  Comma: 44,
  OpenBrace: 123,
  CloseBrace: 125,
  OpenBracket: 91,
  CloseBracket: 93,
  Bom: 0xfeff,
} as const

const isSpace = (c: number) => c === Ch.Space || c === Ch.Newline || c === Ch.Tab || c === Ch.Cr || c === Ch.Bom

export class JsonSplitter {
  private line = 1
  private index = 0
  private depth = 0
  private inString = false
  private escaped = false
  /** Array mode: the opening '[' has been seen / the closing ']' has been seen. */
  private opened = false
  private closed = false
  private inValue = false
  private valueLine = 0
  private parts: string[] = []
  private partsLength = 0
  private tooLong = false

  /** `array`: the text is one top-level array; otherwise a sequence of values. */
  constructor(private readonly array: boolean) {}

  private get base(): number {
    return this.array ? 1 : 0
  }

  push(chunk: string): RawRecord[] {
    const out: RawRecord[] = []
    let start = 0 // where the current value begins inside this chunk
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i)
      if (c === Ch.Newline) this.line++
      if (this.inString) {
        if (this.escaped) this.escaped = false
        else if (c === Ch.Backslash) this.escaped = true
        else if (c === Ch.Quote) this.inString = false
        continue
      }
      if (this.inValue) {
        if (c === Ch.Quote) this.inString = true
        else if (c === Ch.OpenBrace || c === Ch.OpenBracket) this.depth++
        else if ((c === Ch.CloseBrace || c === Ch.CloseBracket) && this.depth > this.base) {
          this.depth--
          // A sequence's object or array ends with its closing bracket.
          if (!this.array && this.depth === 0) this.finish(out, chunk.slice(start, i + 1))
        } else if (this.depth === this.base && (c === Ch.Comma || c === Ch.CloseBracket || (!this.array && (isSpace(c) || c === Ch.OpenBrace)))) {
          // The end of a value at the top level: the separator or the array's end, not part of it.
          this.finish(out, chunk.slice(start, i))
          i-- // look at this character again outside the value
          if (c === Ch.Newline) this.line--
        }
        continue
      }
      if (isSpace(c)) continue
      if (this.array && !this.opened) {
        if (c === Ch.OpenBracket) {
          this.opened = true
          this.depth = 1
        } else return [...out, this.fatal('the file does not start with "["')]
        continue
      }
      if (this.array && this.closed) return [...out, this.fatal('text after the end of the array')]
      if (this.array && c === Ch.Comma) continue
      if (this.array && c === Ch.CloseBracket) {
        this.closed = true
        this.depth = 0
        continue
      }
      // A value starts here.
      this.inValue = true
      this.valueLine = this.line
      start = i
      i-- // look at this character again inside the value
      if (c === Ch.Newline) this.line--
    }
    if (this.inValue) this.keep(chunk.slice(start))
    return out
  }

  /** Call once at the end of the text: reports a value or array left open. */
  end(): RawRecord[] {
    const out: RawRecord[] = []
    if (this.inValue) {
      // A value whose brackets and quotes are all closed is complete, even if nothing follows it.
      if (this.inString || this.depth > this.base) return [this.fatal('the file ends inside a record (truncated?)')]
      this.finish(out, '')
    }
    if (this.array && this.opened && !this.closed) out.push(this.fatal('the file ends before the array is closed (truncated?)'))
    return out
  }

  private keep(text: string): void {
    if (this.tooLong) return
    this.partsLength += text.length
    if (this.partsLength > MAX_RECORD_CHARS) {
      this.tooLong = true
      this.parts = []
    } else this.parts.push(text)
  }

  private finish(out: RawRecord[], tail: string): void {
    this.keep(tail)
    const record: RawRecord = { line: this.valueLine, index: this.index++ }
    if (this.tooLong) record.error = `record longer than ${MAX_RECORD_CHARS} characters`
    else record.text = this.parts.join('')
    out.push(record)
    this.parts = []
    this.partsLength = 0
    this.tooLong = false
    this.inValue = false
  }

  private fatal(error: string): RawRecord {
    this.inValue = false
    this.parts = []
    return { line: this.line, index: this.index, error, fatal: true }
  }
}
