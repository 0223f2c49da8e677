// What the search box sends, and the guard against patterns this browser could take far too long
// on (highlight.ts and the offline search use it). The API treats the query as a
// case-insensitive regular expression (docs/contract.md, "GET /search-notes"); a person types words, so by
// default the app escapes every metacharacter and the API matches the text literally. With the
// regex switch on, the pattern goes through as typed. Pure functions (no DOM), unit-tested in
// test/web-search.test.ts.

/** The characters that mean something in a regular expression (RE2 and JavaScript alike). */
const METACHARACTERS = /[\\^$.*+?()[\]{}|]/g

export function escapeRegex(text: string): string {
  return text.replace(METACHARACTERS, '\\$&')
}

/** The pattern sent to GET /search-notes for what was typed, or undefined for no search. */
export function searchPattern(typed: string, regex: boolean): string | undefined {
  const text = typed.trim()
  if (!text) return undefined
  return regex ? text : escapeRegex(text)
}

/**
 * Whether this browser's backtracking engine could take far too long on the pattern, where the
 * API's RE2 never does: a group under an unbounded repetition (`(a+)+`, `(a|aa)+`, `((ab)*)+`),
 * or more than one unbounded repetition (`a*a*a*b` is polynomial in the text's length).
 * Deliberately broad: such a pattern is still searched by the API, only not highlighted, and
 * refused by the offline search.
 */
export function backtracksBadly(pattern: string): boolean {
  let unbounded = 0
  let afterGroup = false
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]
    if (c === '\\') {
      i++
    } else if (c === '[') {
      // A character class: its characters are literal (an escaped ] does not end it).
      for (i++; i < pattern.length && pattern[i] !== ']'; i++) if (pattern[i] === '\\') i++
    } else if (c === '*' || c === '+' || (c === '{' && /^\{\d+,\d*\}/.test(pattern.slice(i)))) {
      if (afterGroup) return true
      unbounded++
    }
    afterGroup = c === ')'
  }
  return unbounded > 1
}
