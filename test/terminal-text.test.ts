// The escaping of what the operator commands print (escapeForTerminal, escapeJsonForTerminal in
// src/unicode.ts) and the rule of names (isNameText), for arbitrary strings: the output holds no
// control character a terminal acts on (ESC, BEL, CR, any other C0, DEL, C1) and no bidi
// control, yet shows where one was, and the JSON form is the same data. The commands themselves,
// on hostile names stored in both stores: test/users-cli.test.ts.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { escapeForTerminal, escapeJsonForTerminal, isNameText } from '../src/unicode.js'

/** What a terminal must never receive from users' text: C0, DEL, C1, the bidi controls. */
const FORBIDDEN = [
  ...Array.from({ length: 0x20 }, (_, u) => u),
  ...Array.from({ length: 0x21 }, (_, i) => 0x7f + i),
  0x061c,
  0x200e,
  0x200f,
  0x202a,
  0x202b,
  0x202c,
  0x202d,
  0x202e,
  0x2066,
  0x2067,
  0x2068,
  0x2069,
].map((u) => String.fromCharCode(u))

/** The characters of `text` from FORBIDDEN (`allowed` apart), as code points, for a readable failure. */
const forbiddenIn = (text: string, allowed: readonly string[] = []) =>
  [...text]
    .filter((c) => FORBIDDEN.includes(c) && !allowed.includes(c))
    .map((c) => `U+${c.codePointAt(0)!.toString(16).padStart(4, '0')}`)

/** Bytes of the UTF-8 output: none of ESC, BEL, CR, nor a C1 control's encoding (C2 80 to C2 9F). */
function assertSafeBytes(text: string, allowed: readonly string[] = []): void {
  const bytes = Buffer.from(text, 'utf8')
  for (const byte of [0x1b, 0x07, 0x0d])
    assert.ok(!bytes.includes(byte), `byte ${byte.toString(16)} in ${JSON.stringify(text)}`)
  for (let i = 0; i + 1 < bytes.length; i++)
    assert.ok(
      !(bytes[i] === 0xc2 && bytes[i + 1]! >= 0x80 && bytes[i + 1]! <= 0x9f),
      `a C1 control in ${JSON.stringify(text)}`,
    )
  assert.deepEqual(forbiddenIn(text, allowed), [], JSON.stringify(text))
}

/** Strings rich in what a terminal acts on, among any code point (non-BMP, lone surrogates). */
const hostile = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 4 }) },
      { weight: 3, arbitrary: fc.constantFrom(...FORBIDDEN) },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          '\u001b[2J',
          '\u001b]0;owned\u0007',
          '\u009b31m',
          '\r\n',
          '\\u001b',
          '\\',
          '"',
          'é',
          '李',
          '😀',
          'שלום',
          'محمد',
        ),
      },
      { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((u) => String.fromCharCode(u)) },
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''))

describe('escaping for a terminal', () => {
  it('escapeForTerminal: no C0 (newline included), DEL, C1 or bidi control in the output, for any string', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        const escaped = escapeForTerminal(text)
        assertSafeBytes(escaped)
        assert.ok(escaped.isWellFormed(), 'a lone surrogate is escaped too')
      }),
      { numRuns: 2000 },
    )
  })

  it('escapeForTerminal: lines joined by the newline a command writes hold no other control', () => {
    fc.assert(
      fc.property(fc.array(hostile, { maxLength: 6 }), (rows) => {
        const output = rows.map((row) => `${escapeForTerminal(row)}\n`).join('')
        assertSafeBytes(output, ['\n'])
        assert.equal(output.split('\n').length - 1, rows.length, 'one line per row: no row starts another')
      }),
      { numRuns: 500 },
    )
  })

  it('escapeForTerminal: each escaped character is shown as its \\u escape, and other text is left as it is', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        const expected = [...text]
          .map((c) =>
            FORBIDDEN.includes(c) || (c.length === 1 && c >= '\ud800' && c <= '\udfff')
              ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
              : c,
          )
          .join('')
        assert.equal(escapeForTerminal(text), expected)
      }),
      { numRuns: 1000 },
    )
    assert.equal(escapeForTerminal('Ops\u001b]0;owned\u0007\r\n'), 'Ops\\u001b]0;owned\\u0007\\u000d\\u000a')
    assert.equal(escapeForTerminal('a\u202eb\u0085'), 'a\\u202eb\\u0085')
    for (const name of ['Zoë Ångström', '李小龍', '😀 family 👨‍👩‍👧', 'محمد عبد الله', 'שלום עליכם', 'O\'Brien "Jr" \\ x'])
      assert.equal(escapeForTerminal(name), name)
  })

  it('escapeJsonForTerminal: the JSON text holds no control character, and is the same data', () => {
    fc.assert(
      fc.property(
        fc.record({
          fullName: hostile,
          email: hostile,
          sessions: fc.array(fc.record({ client: hostile }), { maxLength: 3 }),
        }),
        (value) => {
          const json = escapeJsonForTerminal(JSON.stringify(value))
          assertSafeBytes(json)
          // Lone surrogates are escaped by JSON.stringify and come back as they were.
          assert.deepEqual(JSON.parse(json), JSON.parse(JSON.stringify(value)))
          assert.equal((JSON.parse(json) as { fullName: string }).fullName, value.fullName)
        },
      ),
      { numRuns: 1000 },
    )
  })

  it('escapeJsonForTerminal keeps the newlines between values (export pages, users list --json)', () => {
    const page = `${JSON.stringify({ t: 'a\u0085' })}\n${JSON.stringify({ t: 'b\u202e' })}\n`
    assert.equal(escapeJsonForTerminal(page), '{"t":"a\\u0085"}\n{"t":"b\\u202e"}\n')
  })
})

describe('the rule of names (isNameText)', () => {
  it('refuses every control character and bidi control, and an unpaired surrogate', () => {
    for (const c of FORBIDDEN) assert.equal(isNameText(`a${c}b`), false, `U+${c.charCodeAt(0).toString(16)}`)
    assert.equal(isNameText('a\ud800b'), false)
  })

  it('accepts any other well-formed text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const clean = forbiddenIn(text).length === 0
        assert.equal(isNameText(text), clean && text.isWellFormed())
      }),
      { numRuns: 2000 },
    )
    // Zero-width joiners (emoji sequences), non-joiners (Persian) and U+00AD stay allowed: they are format characters, not controls.
    for (const name of ['👨‍👩‍👧', 'می‌خواهم', 'Ad\u00ada', 'Zoë', '李', 'محمد', 'שלום', 'x\u2028y'])
      assert.equal(isNameText(name), true, name)
  })
})
