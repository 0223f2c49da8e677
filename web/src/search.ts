// What the search box sends and what it highlights. The API treats the query as a
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
 * Deliberately broad: such a pattern is still searched by the API, only not highlighted.
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

/**
 * The expression that highlights a pattern's matches in this browser, or undefined when it
 * cannot be highlighted safely: not valid JavaScript syntax (RE2 accepts a few forms it does not),
 * or shaped for catastrophic backtracking. The API has already chosen the notes; this only marks
 * where the text matches.
 */
export function highlighter(pattern: string | undefined): RegExp | undefined {
  if (!pattern || backtracksBadly(pattern)) return undefined
  for (const flags of ['giu', 'gi']) {
    try {
      return new RegExp(pattern, flags)
    } catch {
      // try the next flags
    }
  }
  return undefined
}

export interface Range {
  start: number
  end: number
}

/**
 * Highlighting stops after this many characters of one text, so a long note stays cheap even
 * for a pattern that backtracks a little (one unbounded repetition: quadratic at worst).
 */
export const HIGHLIGHT_LIMIT = 5_000

/** The non-empty matches of `expression` in `text`, in order, none overlapping. */
export function matchRanges(text: string, expression: RegExp | undefined, limit = HIGHLIGHT_LIMIT): Range[] {
  if (!expression || !text) return []
  const re = new RegExp(expression.source, expression.flags.includes('g') ? expression.flags : `${expression.flags}g`)
  const subject = text.length > limit ? text.slice(0, limit) : text
  const ranges: Range[] = []
  for (let match = re.exec(subject); match; match = re.exec(subject)) {
    if (match[0].length === 0) {
      re.lastIndex++
      continue
    }
    ranges.push({ start: match.index, end: match.index + match[0].length })
  }
  return ranges
}
