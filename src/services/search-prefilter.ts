// A cheap, exact pre-check for search. Most notes do not match a query, and each RE2 call on a
// JavaScript string costs about a microsecond or two (the binding copies the string into a new
// UTF-8 buffer every call), which makes RE2 most of a search's time. When the pattern contains
// runs of plain ASCII characters that every match must contain, in that order (`meet` and ` at `
// in `meet(ing)? at [0-9]{1,2}(am|pm)`), a note whose title and content each lack them (compared
// case-insensitively) cannot match, and RE2 is skipped for it. All the runs are kept, not only
// the longest: `meet` alone lets half of the bench's notes through (the word "meeting" is
// common), `meet` then ` at ` one in twenty, the notes that match.
//
// Exactness: the runs are taken only from the pattern's top-level sequence (no top-level `|`),
// only from unquantified ordinary characters, and skip groups, classes, escapes and anything
// unusual; when in doubt there is no run and every note goes to RE2, as without a prefilter. A
// match is the concatenation of what each element of that sequence matched, so it holds the runs
// one after the other, without overlap, in the pattern's order. Case folding: RE2's case-insensitive match
// puts each ASCII letter in its Unicode simple-case-folding orbit, which is {lower, upper} except
// k (also U+212A KELVIN SIGN) and s (also U+017F LONG S). `toLowerCase` maps U+212A to k; U+017F
// is replaced by s by hand. No other character folds onto an ASCII one, so the text's lower-cased
// form holds the runs whenever RE2 could match.

/** Characters that stand for themselves in RE2 syntax outside a class (ASCII only). */
const ORDINARY = /^[A-Za-z0-9 !"#%&',\-/:;<=>@_`~]$/

/** A run shorter than this filters too little to pay for the search. */
const MIN_RUN = 3

/**
 * The runs of characters every match contains, in the order a match holds them, lower-cased;
 * undefined when the pattern has none of at least MIN_RUN characters.
 */
export function requiredRuns(pattern: string): string[] | undefined {
  // Quoting and empty or POSIX classes have parse rules this scanner does not follow: give up.
  if (pattern.includes('\\Q') || pattern.includes('[]') || pattern.includes('[^]')) return undefined
  const runs: string[] = []
  let run = ''
  const endRun = () => {
    if (run.length >= MIN_RUN) runs.push(run.toLowerCase())
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
    if (c === '{') {
      // A repetition's bounds ({2}, {1,3}, {2,}) are not text: reading them as a run would make
      // `ab{100,200}` require "100,200". Anything else after `{` is ordinary text again.
      endRun()
      const bounds = /^\{[0-9]*(,[0-9]*)?\}/.exec(pattern.slice(i))
      i += bounds ? bounds[0].length : 1
      continue
    }
    if (!ORDINARY.test(c)) {
      endRun() // . ^ $ * + ? } ) ] and every non-ASCII character
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
  return runs.length > 0 ? runs : undefined
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

/** Whether `text` holds the lower-cased ASCII `runs` in order, folding case as RE2 does. */
export function containsFolded(text: string, runs: readonly string[]): boolean {
  const lower = text.toLowerCase()
  if (holdsInOrder(lower, runs)) return true
  if (lower.includes('\u017f') && runs.some((run) => run.includes('s'))) {
    return holdsInOrder(lower.replaceAll('\u017f', 's'), runs)
  }
  return false
}

/** Each run found after the previous one ends; the leftmost finds leave the most room. */
function holdsInOrder(text: string, runs: readonly string[]): boolean {
  let from = 0
  for (const run of runs) {
    const at = text.indexOf(run, from)
    if (at < 0) return false
    from = at + run.length
  }
  return true
}
