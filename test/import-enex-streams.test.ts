// The streaming decoders under the Evernote reader: UTF-8 cut anywhere between chunks decodes as a whole, invalid
// sequences come out marked, and base64 cut anywhere (with Evernote's line breaks) decodes to the same bytes.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { Base64Pieces } from '../src/transfer/formats/enex-resource.js'
import { Utf8Pieces } from '../src/transfer/formats/utf8-pieces.js'

/** `whole` cut at `cuts` (positions taken modulo its length). */
function cutAt<T extends { length: number; slice(start: number, end?: number): T }>(whole: T, cuts: number[]): T[] {
  const points = [...new Set(cuts.map((cut) => (whole.length === 0 ? 0 : cut % whole.length)))].sort((a, b) => a - b)
  const parts: T[] = []
  let start = 0
  for (const point of points) {
    parts.push(whole.slice(start, point))
    start = point
  }
  parts.push(whole.slice(start))
  return parts
}

describe('Evernote import: streaming decoders', () => {
  it('decodes valid UTF-8 cut anywhere into the same text, with nothing marked invalid', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 60 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (text, cuts) => {
          const decoder = new Utf8Pieces()
          const pieces = cutAt(Buffer.from(text), cuts).flatMap((part) => decoder.write(part))
          pieces.push(...decoder.end())
          assert.equal(pieces.map((piece) => piece.text).join(''), text)
          assert.ok(pieces.every((piece) => !piece.invalid))
        },
      ),
    )
  })

  it('marks each invalid sequence, wherever the chunks are cut', () => {
    const bytes = Buffer.concat([
      Buffer.from('ok é '),
      Buffer.from([0xc3, 0x28, 0xed, 0xa0, 0x80, 0xf0, 0x9f]),
      Buffer.from('✓'),
    ])
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 6 }), (cuts) => {
        const decoder = new Utf8Pieces()
        const pieces = cutAt(bytes, cuts).flatMap((part) => decoder.write(part))
        pieces.push(...decoder.end())
        const text = pieces.map((piece) => piece.text).join('')
        assert.equal(text.replace(/\uFFFD/g, ''), 'ok é (✓')
        assert.ok(pieces.filter((piece) => piece.invalid).every((piece) => piece.text === '\uFFFD'))
        assert.equal(pieces.filter((piece) => piece.invalid).length, (text.match(/\uFFFD/g) ?? []).length)
        assert.ok(pieces.some((piece) => piece.invalid))
      }),
    )
    const decoder = new Utf8Pieces()
    assert.deepEqual(decoder.write(Buffer.from([0x61, 0xe2, 0x9c])), [{ text: 'a', invalid: false }])
    assert.deepEqual(decoder.end(), [
      { text: '\uFFFD', invalid: true },
      { text: '\uFFFD', invalid: true },
    ])
  })

  it('decodes base64 with line breaks cut anywhere into the same bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.array(fc.nat(), { maxLength: 8 }), (array, cuts) => {
        const bytes = Buffer.from(array)
        const text = (bytes.toString('base64').match(/.{1,76}/g) ?? []).join('\n')
        const decoder = new Base64Pieces()
        const decoded = Buffer.concat(cutAt(text, cuts).map((part) => decoder.write(part)))
        decoder.end()
        assert.deepEqual(decoded, bytes)
        assert.equal(decoder.invalid, false)
      }),
    )
    const decoder = new Base64Pieces()
    decoder.write('QUJD*')
    assert.equal(decoder.invalid, true, 'a character outside base64')
    const cut = new Base64Pieces()
    cut.write('QUJDR')
    cut.end()
    assert.equal(cut.invalid, true, 'a text cut short')
  })
})
