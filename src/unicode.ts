// Text that UTF-8 cannot carry. A JavaScript string is UTF-16 and may hold an unpaired surrogate
// (JSON's "\ud800" escape makes one); UTF-8 has no encoding for it, so each store writes
// something else (SQLite the invalid bytes ED A0 80, node-postgres U+FFFD) and the answer would
// differ from what is stored. Such text is refused wherever it comes in: request fields (the
// schemas' WELL_FORMED format, see app.ts) and import records (transfer/records.ts).
// https://infra.spec.whatwg.org/#scalar-value-string
//
// Below, the characters that act on a display rather than being shown (CONTROL): refused in a
// person's name (the NAME_TEXT format) and escaped in everything the operator commands print.

declare global {
  // ES2024, in Node.js 20; the project's lib is ES2023.
  interface String {
    isWellFormed(): boolean
    toWellFormed(): string
  }
}

/** The JSON Schema `format` of strings that must hold no unpaired surrogate. */
export const WELL_FORMED = 'well-formed-unicode'

export const isWellFormedText = (text: string): boolean => text.isWellFormed()

/** The one wording for every field, on every route and in the import's report. */
export const notWellFormedMessage = (field: string): string =>
  `${field} must be valid Unicode text: it contains an unpaired surrogate`

/**
 * Characters that act on whatever shows the text instead of being shown: the control characters
 * of Unicode's general category Cc (C0 U+0000–U+001F, with ESC, which starts a terminal's escape
 * sequences, BEL and CR; DEL U+007F; C1 U+0080–U+009F, where U+009B is a one-character CSI on
 * some terminals) and the characters of Unicode's Bidi_Control property: the embeddings and
 * overrides U+202A–U+202E, the isolates U+2066–U+2069 and the marks U+200E, U+200F and U+061C,
 * which change the order in which the rest of a line is displayed, so that it reads differently
 * from what it holds.
 */
const CONTROL = /[\p{Cc}\p{Bidi_Control}]/u

/** The JSON Schema `format` of a person's name: well-formed text without CONTROL characters. */
export const NAME_TEXT = 'name-text'

/**
 * A name is a label shown to people and to operators (the web app, `users list`): nothing in it
 * needs a control character. The bidi marks are refused too: a name written in one script,
 * Arabic or Hebrew as much as Latin, is displayed right without them, while they are invisible
 * and move the punctuation and spaces beside them, which makes look-alike names.
 */
export const isNameText = (text: string): boolean => text.isWellFormed() && !CONTROL.test(text)

/** The one wording for a name holding a CONTROL character, on every route and in the CLI. */
export const controlCharactersMessage = (field: string): string => `${field} must not contain control characters`

/**
 * The answer for a string that fails its `format` (WELL_FORMED or NAME_TEXT): an unpaired
 * surrogate is named first, as for every other field.
 */
export const formatProblemMessage = (field: string, value: unknown): string =>
  typeof value === 'string' && value.isWellFormed() ? controlCharactersMessage(field) : notWellFormedMessage(field)

const hex4 = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`

// Global copies of CONTROL for replace: one with unpaired surrogates (\p{Cs} matches only a lone
// half under the u flag), and the part JSON.stringify leaves as it is (it escapes C0 and lone
// surrogates itself).
const CONTROL_OR_LONE_SURROGATE = /[\p{Cc}\p{Bidi_Control}\p{Cs}]/gu
const CONTROL_LEFT_BY_JSON = /[\u007f-\u009f\p{Bidi_Control}]/gu

/**
 * Text for an operator's terminal: each CONTROL character, and each unpaired surrogate, written
 * as the six visible characters of its JSON escape (ESC as `\u001b`), so that data stored before
 * names were checked, or imported, cannot move the cursor, retitle the window, clear the screen,
 * start a new line or reorder the line, and the operator still sees that something was there. A
 * backslash is left as it is. For one line of output: a newline of the text is escaped too.
 */
export const escapeForTerminal = (text: string): string => text.replace(CONTROL_OR_LONE_SURROGATE, hex4)

/**
 * JSON text as JSON.stringify writes it (C0 and lone surrogates already escaped), with DEL, C1
 * and the bidi controls escaped as well: `\u0085` is the same string to any JSON reader, so the
 * data are unchanged and the text is safe on a terminal. Newlines between values, outside
 * strings, are kept.
 */
export const escapeJsonForTerminal = (json: string): string => json.replace(CONTROL_LEFT_BY_JSON, hex4)
