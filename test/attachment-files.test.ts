// The name an upload is kept under and the type it is served as, as properties over any name a client can send.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import {
  FALLBACK_NAME,
  MAX_NAME_BYTES,
  OCTET_STREAM,
  servedInline,
  storedName,
  storedType,
} from '../src/services/attachment-files.js'
import { isNameText } from '../src/unicode.js'

const nameParts = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom('/', '\\', '..', '.', '\r\n', '\u202e', '\u2066', '\u0000', '\u009b', '\ud800', 'é', '📎', '.png'),
)
const names = fc.array(nameParts, { maxLength: 30 }).map((parts) => parts.join(''))

describe('storedName', () => {
  it('keeps no path, control or bidi character, fits 255 bytes, is never empty, and is its own result', () => {
    fc.assert(
      fc.property(names, (raw) => {
        const name = storedName(raw)
        assert.ok(name.length > 0)
        assert.ok(!/[/\\]/.test(name), name)
        assert.ok(isNameText(name), JSON.stringify(name))
        assert.ok(Buffer.byteLength(name) <= MAX_NAME_BYTES)
        assert.ok(!/^\.+$/.test(name))
        assert.equal(storedName(name), name)
      }),
      { numRuns: 2000 },
    )
  })

  it('keeps an ordinary name as it is, and the extension of one cut to size', () => {
    assert.equal(storedName('Holiday photo.jpg'), 'Holiday photo.jpg')
    assert.equal(storedName('C:\\Users\\me\\report.pdf'), 'report.pdf')
    assert.equal(storedName('../../etc/passwd'), 'passwd')
    assert.equal(storedName('..'), FALLBACK_NAME)
    assert.equal(storedName(undefined), FALLBACK_NAME)
    const cut = storedName(`${'ж'.repeat(400)}.jpeg`)
    assert.ok(cut.endsWith('.jpeg') && Buffer.byteLength(cut) <= MAX_NAME_BYTES)
  })
})

describe('storedType and servedInline', () => {
  it("takes the bytes' type; a name alone never makes a file inline", () => {
    fc.assert(
      fc.property(
        names,
        fc.constantFrom(undefined, 'image/png', 'image/gif', 'application/pdf', 'video/mp4', 'application/zip'),
        (raw, detected) => {
          const name = storedName(raw)
          const type = storedType(detected, name)
          if (detected) assert.equal(type, detected)
          if (!detected) assert.equal(servedInline(type, name), false, `${name} ${type}`)
        },
      ),
    )
  })

  it('is inline only for pictures, PDF, audio and video whose name claims nothing else', () => {
    assert.equal(servedInline('image/png', 'a.png'), true)
    assert.equal(servedInline('image/png', 'a.jpg'), true)
    assert.equal(servedInline('image/png', 'photo'), true)
    assert.equal(servedInline('image/gif', 'x.html'), false)
    assert.equal(servedInline('image/svg+xml', 'x.svg'), false)
    assert.equal(servedInline('text/html', 'x.png'), false)
    assert.equal(servedInline('application/pdf', 'doc.pdf'), true)
    assert.equal(servedInline('audio/ogg', 'a.ogg'), true)
    assert.equal(storedType(undefined, 'x.png'), OCTET_STREAM, 'a picture the bytes do not confirm is only bytes')
    assert.equal(storedType(undefined, 'x.svg'), 'image/svg+xml')
    assert.equal(storedType(undefined, 'notes.md'), 'text/markdown')
  })
})
