// RE2 runs on worker threads, never on the main thread (docs/search.md). A running task is never aborted: ending
// a thread does not end a native RE2 call, and piscina would start a replacement beside it. The task stops at the
// search's deadline, checked between two calls; its thread is busy till then.
import { fileURLToPath } from 'node:url'
import { Piscina } from 'piscina'
import { ContractError, badRequest } from '../errors.js'
import type { SearchPlan } from '../store/search-trigrams.js'
import type { SearchText, TextMatcher } from '../store/types.js'
import { parsePattern, tooComplex } from './search-cost.js'
import { searchPlan } from './search-plan.js'
import { type MatchResult, type MatchTask, STARTED } from './search-task.js'

/** SEARCH_THREADS, SEARCH_QUEUE (searches that may wait for a thread) and SEARCH_TIMEOUT_MS, the budget of a whole search (docs/search.md). */
export type SearchLimits = Record<'threads' | 'queue' | 'timeoutMs', number>

const searchTooSlow = (timeoutMs: number) =>
  badRequest(`Search took longer than ${timeoutMs} ms: use a simpler pattern`)

export const SEARCH_BUSY = 'Too many searches are running: try again shortly'

const WORKER = fileURLToPath(
  new URL(`./search-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url),
)

export class SearchPool {
  /** Searches admitted, counted until the last task of each has settled. */
  underWay = 0
  private pool: Piscina<MatchTask, MatchResult> | undefined
  private starting: Promise<void> | undefined

  constructor(readonly limits: SearchLimits) {}

  /** Made at the first search, not before: an instance that is never searched starts no thread. */
  get threads(): Piscina<MatchTask, MatchResult> {
    this.pool ??= new Piscina<MatchTask, MatchResult>({
      filename: WORKER,
      // Once started, they stay: a thread started inside a search's budget spends it on starting, which on a busy
      // machine is longer than the budget, and the search would be refused as if every thread were busy.
      minThreads: this.limits.threads,
      maxThreads: this.limits.threads,
      // A thread only copies texts in and numbers out: a small young generation is enough (docs/performance.md, "Memory").
      resourceLimits: { maxYoungGenerationSizeMb: 6 },
      // No niceIncrement: at a lower priority than the main thread's, a busy main thread starves them.
    })
    return this.pool
  }

  /**
   * Resolves once a thread has run a task: a search waits for it before its budget starts, since starting a thread is
   * the server's cost, neither the pattern's (400) nor a sign that every thread is busy (503). Tried again after a
   * failure.
   */
  started(): Promise<void> {
    this.starting ??= this.threads
      .run({ pattern: '', texts: [], control: new Int32Array(new SharedArrayBuffer(4)), deadline: Infinity })
      .then(
        () => {},
        (err: unknown) => {
          this.starting = undefined
          throw err
        },
      )
    return this.starting
  }

  /** An admitted search, or a 400 or 503; the caller calls end() when the search is over, answered or failed. */
  start(query: string): Search {
    const pattern = parsePattern(query)
    const why = tooComplex(pattern)
    if (why !== undefined) throw badRequest(`query is too complex: ${why}`)
    if (this.underWay >= this.limits.threads + this.limits.queue) throw this.busy()
    this.underWay++
    return new Search(query, searchPlan(pattern), this.limits.timeoutMs, this)
  }

  /** Ends the threads; one inside a long RE2 call ends when the call returns. */
  close(): Promise<void> {
    return this.pool?.destroy() ?? Promise.resolve()
  }

  busy(): ContractError {
    const retryAfter = String(Math.max(1, Math.ceil(this.limits.timeoutMs / 1000)))
    return new ContractError(503, SEARCH_BUSY, true, { 'retry-after': retryAfter })
  }
}

export class Search implements TextMatcher {
  /** The whole search's budget: reading the notes and matching them. */
  private readonly deadline: number
  private settled: Promise<unknown> = Promise.resolve()
  private ended = false

  constructor(
    private readonly pattern: string,
    readonly plan: SearchPlan | undefined,
    private readonly timeoutMs: number,
    private readonly pool: SearchPool,
  ) {
    this.deadline = Date.now() + timeoutMs
  }

  timeLeft(): number {
    const left = this.deadline - Date.now()
    if (left <= 0) this.outOfTime()
    return left
  }

  outOfTime(): never {
    throw searchTooSlow(this.timeoutMs)
  }

  matchPage(notes: readonly SearchText[]): Promise<number[]> {
    const texts: string[] = []
    for (const note of notes) texts.push(note.title, note.content)
    const control = new Int32Array(new SharedArrayBuffer(4))
    const task = this.pool.threads.run({ pattern: this.pattern, texts, control, deadline: this.deadline })
    this.settled = Promise.all([this.settled, task.catch(() => {})])
    return new Promise<number[]>((resolve, reject) => {
      // At the deadline, a task no thread has started means the server is busy (503); one running, a costly pattern (400).
      const timer = setTimeout(
        () => reject(Atomics.load(control, STARTED) === 0 ? this.pool.busy() : searchTooSlow(this.timeoutMs)),
        Math.max(0, this.deadline - Date.now()),
      )
      task
        .finally(() => clearTimeout(timer))
        .then((result) => {
          if ('invalid' in result) reject(badRequest(`query is not a supported regular expression: ${result.invalid}`))
          else if ('stopped' in result) reject(searchTooSlow(this.timeoutMs))
          else resolve(result.matched)
        }, reject)
    })
  }

  /** The search's place is given back once its last task settles (at the latest one RE2 call past the deadline). */
  end(): void {
    if (this.ended) return
    this.ended = true
    void this.settled.then(() => this.pool.underWay--)
  }
}
