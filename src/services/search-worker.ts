// The search threads' half of search-pool.ts: RE2 runs here, on a worker thread, never on the
// main thread. RE2 is linear in the text, but its cost per character grows with the compiled
// pattern, and one call over a 100 000-character content can take from milliseconds to over a
// minute for patterns such as `(.*a){1000}` (docs/search.md). A native call cannot be
// interrupted, so a pattern whose estimated cost per character is over the bound is refused before
// it runs (search-cost.ts): what one call of an accepted pattern costs stays well under the
// budget. The task checks its budget and the main thread's cancel flag between calls and stops
// at the first check past either.
import RE2 from 're2'
import { tooComplex } from './search-cost.js'
import { CANCELLED, type MatchResult, type MatchTask, STARTED } from './search-task.js'

type Refusal = { invalid: string } | { tooComplex: string }

/**
 * Compiled patterns, most recently used last: a search sends its pattern with every page, and
 * compiling a large one takes up to ~0.2 s. A refused pattern is kept with its refusal.
 */
const compiled = new Map<string, RE2 | Refusal>()
const CACHED_PATTERNS = 16

function compile(pattern: string): RE2 | Refusal {
  let re = compiled.get(pattern)
  if (re !== undefined) compiled.delete(pattern)
  else {
    try {
      // 'i': case-insensitive, as the specification says; 'u': match by code point, not UTF-16 unit.
      re = new RE2(pattern, 'iu')
      // Estimated from RE2's syntax, so only once RE2 has accepted it (an invalid pattern is
      // answered as invalid, whatever its size).
      const why = tooComplex(pattern)
      if (why !== undefined) re = { tooComplex: why }
    } catch (err) {
      re = { invalid: err instanceof Error ? err.message : String(err) }
    }
    if (compiled.size >= CACHED_PATTERNS) compiled.delete(compiled.keys().next().value as string)
  }
  compiled.set(pattern, re)
  return re
}

export default function match(task: MatchTask): MatchResult {
  const startedAt = Date.now()
  Atomics.store(task.control, STARTED, Math.max(0, startedAt - task.sentAt) + 1)
  const deadline = startedAt + task.budgetMs
  const stop = () => Atomics.load(task.control, CANCELLED) !== 0 || Date.now() >= deadline
  if (stop()) return { stopped: true }
  const re = compile(task.pattern)
  if (!(re instanceof RE2)) return re
  const matched: number[] = []
  const { texts } = task
  for (let i = 0; i + 1 < texts.length; i += 2) {
    if (stop()) return { stopped: true }
    if (re.test(texts[i] as string)) matched.push(i / 2)
    else {
      if (stop()) return { stopped: true }
      if (re.test(texts[i + 1] as string)) matched.push(i / 2)
    }
  }
  return { matched }
}
