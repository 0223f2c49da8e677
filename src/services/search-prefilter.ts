// An exact pre-check (docs/search.md): a note whose title and content each lack the runs of plain ASCII that every
// match holds in order cannot match, so RE2 skips it; in doubt, no run. RE2's case folding adds only U+212A to k
// (toLowerCase does too) and U+017F to s (replaced by hand): the lower-cased text holds the runs whenever RE2 could match.

const ORDINARY = /^[A-Za-z0-9 !"#%&',\-/:;<=>@_`~]$/

/** A run shorter than this filters too little to pay for the search. */
const MIN_RUN = 3

/** The lower-cased runs every match contains, in order; undefined when there is none of MIN_RUN characters. */
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
    if (c === '|') return undefined // a top-level alternative needs none of this run
    const next = pattern[i + 1]
    // A quantified character may repeat or be absent: it is not part of a fixed run.
    if (ORDINARY.test(c) && next !== '*' && next !== '+' && next !== '?' && next !== '{') {
      run += c
      i++
      continue
    }
    endRun()
    if (c === '\\') i = escapeEnd(pattern, i)
    else if (c === '(' || c === '[') {
      const close = c === '(' ? skipGroup(pattern, i) : skipClass(pattern, i)
      i = close < 0 ? -1 : close + 1
    } else if (c === '{') {
      // A repetition's bounds are not text (`ab{100,200}` does not require "100,200").
      i += /^\{[0-9]*(,[0-9]*)?\}/.exec(pattern.slice(i))?.[0].length ?? 1
    } else i++ // . ^ $ * + ? } ) ], a quantified or a non-ASCII character
    if (i < 0) return undefined
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
  if (/[0-9]/.test(kind)) return after + pattern.slice(after).search(/[^0-9]|$/)
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

export function containsFolded(text: string, runs: readonly string[]): boolean {
  const lower = text.toLowerCase()
  if (holdsInOrder(lower, runs)) return true
  return lower.includes('\u017f') && runs.some((run) => run.includes('s')) && holdsInOrder(lower.replaceAll('\u017f', 's'), runs)
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
