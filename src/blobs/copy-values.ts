// The values of a one-column `COPY … TO STDOUT (FORMAT binary)` (PostgreSQL's documentation, "COPY", "Binary
// Format"), read from the pieces the connection delivers as they come. A value is the bytes of one row's field: a
// subarray of its piece when it lies within one, else one buffer joined from its pieces, which are let go at once;
// so reading a COPY holds its values and less than one value's worth of pieces, never the COPY twice over.

/** What a binary COPY begins with, before 32 bits of flags and the 32-bit length of a header extension. */
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1')

type Step = 'signature' | 'flags' | 'extension length' | 'extension' | 'field count' | 'value length' | 'value'

export class CopyValues {
  readonly values: Buffer[] = []
  private pieces: Buffer[] = []
  private held = 0
  private step: Step = 'signature'
  /** The bytes the step takes. */
  private need = SIGNATURE.length
  private ended = false

  push(piece: Buffer): void {
    this.pieces.push(piece)
    this.held += piece.length
    while (!this.ended && this.held >= this.need) this.next(this.take(this.need))
  }

  /** The values, once the COPY has ended; an error when it ended early or held more than one column. */
  end(): Buffer[] {
    if (!this.ended || this.held > 0) throw new Error('A binary COPY cut short or followed by other bytes')
    return this.values
  }

  /** The next `n` bytes held. */
  private take(n: number): Buffer {
    if (n === 0) return Buffer.alloc(0)
    this.held -= n
    const first = this.pieces[0]!
    if (first.length > n) {
      this.pieces[0] = first.subarray(n)
      return first.subarray(0, n)
    }
    if (first.length === n) return this.pieces.shift()!
    const parts: Buffer[] = []
    let left = n
    while (left > 0) {
      const piece = this.pieces[0]!
      const part = piece.length > left ? piece.subarray(0, left) : piece
      if (piece.length > left) this.pieces[0] = piece.subarray(left)
      else this.pieces.shift()
      parts.push(part)
      left -= part.length
    }
    return Buffer.concat(parts, n)
  }

  private next(bytes: Buffer): void {
    switch (this.step) {
      case 'signature':
        if (!bytes.equals(SIGNATURE)) throw new Error('Not a binary COPY')
        return this.expect('flags', 4)
      case 'flags':
        return this.expect('extension length', 4)
      case 'extension length':
        return this.expect('extension', bytes.readUInt32BE(0))
      case 'extension':
      case 'value':
        if (this.step === 'value') this.values.push(bytes)
        return this.expect('field count', 2)
      case 'field count': {
        const fields = bytes.readInt16BE(0)
        if (fields === -1) {
          this.ended = true
          return
        }
        if (fields !== 1) throw new Error(`A binary COPY row of ${fields} fields, not 1`)
        return this.expect('value length', 4)
      }
      case 'value length': {
        const length = bytes.readInt32BE(0)
        if (length < 0) throw new Error('A binary COPY row with no value (NULL)')
        return this.expect('value', length)
      }
    }
  }

  private expect(step: Step, need: number): void {
    this.step = step
    this.need = need
  }
}
