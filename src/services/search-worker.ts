// The search threads' half of search-pool.ts: RE2 runs here, on a worker thread, never on the
// main thread. RE2 is linear in the text, but its cost per character grows with the compiled
// pattern, and one call over a 100 000-character content can take from milliseconds to over a
// minute for patterns such as `(.*a){1000}` (docs/search.md). A native call cannot be
// interrupted: such patterns are refused before they are sent here (search-cost.ts), so that one
// call of an accepted pattern stays well under the budget, and the task checks its budget and the
// main thread's cancel flag between calls and stops at the first check past either.
import RE2 from 're2'
import { CANCELLED, type MatchResult, type MatchTask, STARTED } from './search-task.js'

/**
 * Compiled patterns, most recently used last: a search sends its pattern with every page, and
 * compiling a large one takes long (docs/search.md, "The cost bound"). A pattern RE2 refuses is
 * kept with its message.
 */
const compiled = new Map<string, RE2 | string>()
const CACHED_PATTERNS = 16

function compile(pattern: string): RE2 | string {
  let re = compiled.get(pattern)
  if (re !== undefined) compiled.delete(pattern)
  else {
    try {
      // 'i': case-insensitive, as the contract says; 'u': match by code point, not UTF-16 unit.
      re = new RE2(pattern, 'iu')
    } catch (err) {
      re = err instanceof Error ? err.message : String(err)
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
  if (typeof re === 'string') return { invalid: re }
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
