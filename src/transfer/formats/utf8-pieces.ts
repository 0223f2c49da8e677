// Bytes to text as they stream, with each invalid UTF-8 sequence handed over as a piece of its own: a reader can then
// tell which of its items held bytes that are not UTF-8, where a plain decoder silently writes U+FFFD in their place.
import { isUtf8 } from 'node:buffer'

/** A run of text; `invalid` marks a U+FFFD that stands for bytes that are not UTF-8. */
export interface TextPiece {
  text: string
  invalid: boolean
}

const INVALID: TextPiece = { text: '\uFFFD', invalid: true }

function isContinuation(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80
}

/** The length of the well-formed sequence at `i` (Unicode's table 3-7), or 0 when the bytes there are not one. */
function sequenceLength(bytes: Buffer, i: number): number {
  const lead = bytes[i] as number
  if (lead < 0x80) return 1
  if (lead >= 0xc2 && lead <= 0xdf) return isContinuation(bytes[i + 1]) ? 2 : 0
  const second = bytes[i + 1]
  if (second === undefined) return 0
  if (lead >= 0xe0 && lead <= 0xef) {
    const low = lead === 0xe0 ? 0xa0 : 0x80
    const high = lead === 0xed ? 0x9f : 0xbf
    return second >= low && second <= high && isContinuation(bytes[i + 2]) ? 3 : 0
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    const low = lead === 0xf0 ? 0x90 : 0x80
    const high = lead === 0xf4 ? 0x8f : 0xbf
    const ok = second >= low && second <= high && isContinuation(bytes[i + 2]) && isContinuation(bytes[i + 3])
    return ok ? 4 : 0
  }
  return 0
}

/** Where a sequence that the next chunk may complete starts at the end of `bytes`, or its length when none does. */
function incompleteTail(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back += 1) {
    const byte = bytes[bytes.length - back] as number
    if ((byte & 0xc0) === 0x80) continue
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1
    return needed > back ? bytes.length - back : bytes.length
  }
  return bytes.length
}

/** Splits well-formed runs from invalid sequences; most chunks are valid and pass in one piece. */
function pieces(bytes: Buffer): TextPiece[] {
  if (bytes.length === 0) return []
  if (isUtf8(bytes)) return [{ text: bytes.toString('utf8'), invalid: false }]
  const found: TextPiece[] = []
  let start = 0
  let i = 0
  while (i < bytes.length) {
    const length = sequenceLength(bytes, i)
    if (length > 0) {
      i += length
      continue
    }
    if (i > start) found.push({ text: bytes.toString('utf8', start, i), invalid: false })
    found.push(INVALID)
    i += 1
    start = i
  }
  if (i > start) found.push({ text: bytes.toString('utf8', start, i), invalid: false })
  return found
}

/** A streaming decoder: a sequence cut by a chunk's end is completed by the next chunk. */
export class Utf8Pieces {
  private carry: Buffer = Buffer.alloc(0)

  write(chunk: Buffer): TextPiece[] {
    const bytes = this.carry.length === 0 ? chunk : Buffer.concat([this.carry, chunk])
    const cut = incompleteTail(bytes)
    this.carry = Buffer.from(bytes.subarray(cut))
    return pieces(bytes.subarray(0, cut))
  }

  /** What the last chunk left unfinished: an invalid sequence, if anything. */
  end(): TextPiece[] {
    const rest = this.carry
    this.carry = Buffer.alloc(0)
    return pieces(rest)
  }
}
