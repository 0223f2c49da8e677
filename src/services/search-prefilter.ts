// A cheap, exact pre-check for search. Most notes do not match a query, and each RE2 call on a
// JavaScript string costs about a microsecond or two (the binding copies the string into a new
// UTF-8 buffer every call), which makes RE2 most of a search's time. When the pattern contains a
// run of plain ASCII characters that every match must contain, a note whose title or content
// lacks that run (compared case-insensitively) cannot match, and RE2 is skipped for it.
//
// Exactness: the run is taken only from the pattern's top-level sequence (no top-level `|`),
// only from unquantified ordinary characters, and skips groups, classes, escapes and anything
// unusual; when in doubt there is no run and every note goes to RE2 as before. Case folding:
// RE2's case-insensitive match puts each ASCII letter in its Unicode simple-case-folding orbit,
// which is {lower, upper} except k (also U+212A KELVIN SIGN) and s (also U+017F LONG S).
// `toLowerCase` maps U+212A to k; U+017F is replaced by s by hand. No other character folds onto
// an ASCII one, so the text's lower-cased form contains the run whenever RE2 could match.

/** Characters that stand for themselves in RE2 syntax outside a class (ASCII only). */
const ORDINARY = /^[A-Za-z0-9 !"#%&',\-/:;<=>@_`~]$/

/** A run shorter than this filters too little to pay for the lower-casing. */
const MIN_RUN = 3

/** The longest run of characters every match contains, lower-cased, or undefined. */
export function requiredLiteral(pattern: string): string | undefined {
  // Quoting and empty or POSIX classes have parse rules this scanner does not follow: give up.
  if (pattern.includes('\\Q') || pattern.includes('[]') || pattern.includes('[^]')) return undefined
  let best = ''
  let run = ''
  const endRun = () => {
    if (run.length > best.length) best = run
    run = ''
  }
  let i = 0
  while (i < pattern.length) {
    const c = pattern[i] as string
    const next = pattern[i + 1]
    if (c === '|') return undefined // a top-level alternative needs none of this run
    if (c === '\\') {
      endRun() // an escape (\d, \b, \x41, \u{1F600}, \p{Greek}, ...) ends the run
      const end = escapeEnd(pattern, i)
      if (end < 0) return undefined
      i = end
      continue
    }
    if (c === '(') {
      endRun()
      const close = skipGroup(pattern, i)
      if (close < 0) return undefined
      i = close + 1
      continue
    }
    if (c === '[') {
      endRun()
      const close = skipClass(pattern, i)
      if (close < 0) return undefined
      i = close + 1
      continue
    }
    if (!ORDINARY.test(c)) {
      endRun() // . ^ $ * + ? { } ) ] and every non-ASCII character
      i++
      continue
    }
    if (next === '*' || next === '+' || next === '?' || next === '{') {
      endRun() // a quantified character may repeat or be absent: not part of a fixed run
      i++
      continue
    }
    run += c
    i++
  }
  endRun()
  return best.length >= MIN_RUN ? best.toLowerCase() : undefined
}

/** Index just past the escape starting at `at` (a backslash), or -1 when it looks malformed. */
function escapeEnd(pattern: string, at: number): number {
  const kind = pattern[at + 1]
  const after = at + 2
  const braced = (open: string, close: string, fixed: number) => {
    if (pattern[after] !== open) return after + fixed
    const end = pattern.indexOf(close, after)
    return end < 0 ? -1 : end + 1
  }
  if (kind === undefined) return -1
  if (kind === 'x') return braced('{', '}', 2)
  if (kind === 'u') return braced('{', '}', 4)
  if (kind === 'p' || kind === 'P') return braced('{', '}', 1)
  if (kind === 'k') return braced('<', '>', 0)
  if (kind === 'c') return after + 1
  if (/[0-9]/.test(kind)) {
    let end = after
    while (end < pattern.length && /[0-9]/.test(pattern[end] as string)) end++
    return end
  }
  return after
}

/** Index of the `)` closing the group opened at `open`, or -1. */
function skipGroup(pattern: string, open: number): number {
  let depth = 0
  for (let i = open; i < pattern.length; i++) {
    const c = pattern[i]
    if (c === '\\') i++
    else if (c === '[') {
      const close = skipClass(pattern, i)
      if (close < 0) return -1
      i = close
    } else if (c === '(') depth++
    else if (c === ')' && --depth === 0) return i
  }
  return -1
}

/** Index of the `]` closing the class opened at `open`, or -1 (also for nested `[`). */
function skipClass(pattern: string, open: number): number {
  for (let i = open + 1; i < pattern.length; i++) {
    const c = pattern[i]
    if (c === '\\') i++
    else if (c === '[') return -1 // POSIX classes such as [[:alpha:]]: not followed here
    else if (c === ']') return i
  }
  return -1
}

/** Whether `text` contains the lower-cased ASCII `literal`, folding case as RE2 does. */
export function containsFolded(text: string, literal: string): boolean {
  let lower = text.toLowerCase()
  if (lower.includes(literal)) return true
  if (literal.includes('s') && lower.includes('\u017f')) {
    lower = lower.replaceAll('\u017f', 's')
    return lower.includes(literal)
  }
  return false
}
