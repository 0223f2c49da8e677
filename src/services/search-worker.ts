// The search threads' half of search-pool.ts: the search's deadline is checked between RE2 calls.
import { LRUCache } from 'lru-cache'
import RE2 from 're2'
import { type MatchResult, type MatchTask, STARTED } from './search-task.js'

/** A search sends its pattern with every page, and a large one compiles slowly; a refused one keeps its message. */
const compiled = new LRUCache<string, RE2 | string>({ max: 16 })

function compile(pattern: string): RE2 | string {
  let re = compiled.get(pattern)
  if (re === undefined) {
    try {
      // 'i': case-insensitive, as the contract says; 'u': match by code point, not UTF-16 unit.
      re = new RE2(pattern, 'iu')
    } catch (err) {
      re = err instanceof Error ? err.message : String(err)
    }
    compiled.set(pattern, re)
  }
  return re
}

export default function match(task: MatchTask): MatchResult {
  Atomics.store(task.control, STARTED, 1)
  const stop = () => Date.now() >= task.deadline
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
