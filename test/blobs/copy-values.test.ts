// The binary COPY reader: whatever pieces the connection cuts a COPY into, the values come out as they went in, and
// a COPY cut short or of another shape is an error. The PostgreSQL driver's suite (postgres.test.ts) reads real ones.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { CopyValues } from '../../src/blobs/copy-values.js'

/** A one-column binary COPY of `values`, as PostgreSQL sends it, with a header extension of `extension` bytes. */
function binaryCopy(values: Buffer[], extension = 0): Buffer {
  const int = (bits: 16 | 32, n: number) => {
    const b = Buffer.alloc(bits / 8)
    if (bits === 16) b.writeInt16BE(n)
    else b.writeInt32BE(n)
    return b
  }
  return Buffer.concat([
    Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'),
    int(32, 0),
    int(32, extension),
    Buffer.alloc(extension, 7),
    ...values.flatMap((v) => [int(16, 1), int(32, v.length), v]),
    int(16, -1),
  ])
}

/** `bytes` cut at the given positions. */
function cut(bytes: Buffer, at: number[]): Buffer[] {
  const points = [...new Set(at.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b)
  const pieces: Buffer[] = []
  let from = 0
  for (const p of [...points, bytes.length]) {
    pieces.push(bytes.subarray(from, p))
    from = p
  }
  return pieces
}

const valuesArb = fc.array(
  fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
  { maxLength: 8 },
)

describe('binary COPY values', () => {
  it('reads back every value, however the COPY is cut into pieces', () => {
    fc.assert(
      fc.property(valuesArb, fc.nat(20), fc.array(fc.nat(), { maxLength: 40 }), (values, extension, at) => {
        const reader = new CopyValues()
        for (const piece of cut(binaryCopy(values, extension), at)) reader.push(piece)
        assert.deepEqual(reader.end(), values)
      }),
    )
  })

  it('refuses a COPY cut short, one with bytes after its end, and one of another shape', () => {
    fc.assert(
      fc.property(valuesArb, fc.nat(), (values, at) => {
        const whole = binaryCopy(values)
        const short = new CopyValues()
        short.push(whole.subarray(0, at % whole.length))
        assert.throws(() => short.end(), /cut short/)
      }),
    )
    const trailing = new CopyValues()
    trailing.push(Buffer.concat([binaryCopy([Buffer.from('a')]), Buffer.from('x')]))
    assert.throws(() => trailing.end(), /followed by other bytes/)
    assert.throws(() => new CopyValues().push(Buffer.from('PGCOPY\n\xff\r\n\x01', 'latin1')), /Not a binary COPY/)
    const twoColumns = Buffer.concat([binaryCopy([]).subarray(0, 19), Buffer.from([0, 2])])
    assert.throws(() => new CopyValues().push(twoColumns), /2 fields, not 1/)
  })
})
