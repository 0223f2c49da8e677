// A JavaScript string may hold an unpaired surrogate (JSON's "\ud800" makes one), which UTF-8 cannot carry: a store would
// keep something else than the answer says. Such text is refused in request fields (WELL_FORMED) and import records.
// The characters that act on a display (CONTROL) are refused in a name (NAME_TEXT) and escaped in what the CLI prints.

declare global {
  // ES2024, in Node.js 20; the project's lib is ES2023.
  interface String {
    isWellFormed(): boolean
    toWellFormed(): string
  }
}

export const WELL_FORMED = 'well-formed-unicode'

export const isWellFormedText = (text: string): boolean => text.isWellFormed()

export const notWellFormedMessage = (field: string): string =>
  `${field} must be valid Unicode text: it contains an unpaired surrogate`

/**
 * The control characters (C0 with ESC, DEL, C1 with U+009B, a one-character CSI on some terminals) and the Bidi_Control
 * characters, which reorder the rest of a line so that it reads differently from what it holds.
 */
const CONTROL = /[\p{Cc}\p{Bidi_Control}]/u

export const NAME_TEXT = 'name-text'

/** A name needs no control character, and invisible bidi marks would make look-alike names. */
export const isNameText = (text: string): boolean => text.isWellFormed() && !CONTROL.test(text)

/** `text` without CONTROL characters: what a name shown to people may keep of a name a client chose. */
export const withoutControls = (text: string): string => text.replace(CONTROL_ALL, '')
const CONTROL_ALL = new RegExp(CONTROL.source, 'gu')

export const controlCharactersMessage = (field: string): string => `${field} must not contain control characters`

/** The answer for a string that fails WELL_FORMED or NAME_TEXT: an unpaired surrogate is named first. */
export const formatProblemMessage = (field: string, value: unknown): string =>
  typeof value === 'string' && value.isWellFormed() ? controlCharactersMessage(field) : notWellFormedMessage(field)

const hex4 = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`

// CONTROL with unpaired surrogates (\p{Cs} matches only a lone half under the u flag), and the
// part of it that JSON.stringify leaves as it is (it escapes C0 and lone surrogates itself).
const CONTROL_OR_LONE_SURROGATE = /[\p{Cc}\p{Bidi_Control}\p{Cs}]/gu
const CONTROL_LEFT_BY_JSON = /[\u007f-\u009f\p{Bidi_Control}]/gu

/** Text for one line of a terminal: CONTROL characters and unpaired surrogates as JSON escapes (ESC as `\u001b`). */
export const escapeForTerminal = (text: string): string => text.replace(CONTROL_OR_LONE_SURROGATE, hex4)

/** JSON text from JSON.stringify with DEL, C1 and the bidi controls escaped too: the same data to any JSON reader. */
export const escapeJsonForTerminal = (json: string): string => json.replace(CONTROL_LEFT_BY_JSON, hex4)
