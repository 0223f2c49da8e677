// Text that UTF-8 cannot carry. A JavaScript string is UTF-16 and may hold an unpaired surrogate
// (JSON's "\ud800" escape makes one); UTF-8 has no encoding for it, so each store writes
// something else (SQLite the invalid bytes ED A0 80, node-postgres U+FFFD) and the answer would
// differ from what is stored. Such text is refused wherever it comes in: request fields (the
// schemas' WELL_FORMED format, see app.ts) and import records (transfer/records.ts).
// https://infra.spec.whatwg.org/#scalar-value-string

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
