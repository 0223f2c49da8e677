// Search patterns run on RE2 in a pool of worker threads (piscina), never on the main thread: one
// RE2 call over a 100 000-character note can take seconds for a pattern such as `(.*a){1000}`
// (docs/search.md), and on the main thread it would hold every other request for as long.
// The store reads the candidate notes page by page on the main thread and hands each page to
// Search.matchPage, which sends it to a thread and gets back which notes match.
//
// Limits, each answered in the contract's error shape:
// - a pattern whose estimated matching cost per character is over MAX_PATTERN_COST is answered
//   400 "query is too complex: ..." at once (search-cost.ts: microseconds on the main thread), so
//   that one RE2 call over the largest note stays well under the budget; it takes no thread,
//   no compile (slowest for exactly such patterns: docs/search.md, "The cost bound") and no
//   place among the searches under way;
// - a search may match for SEARCH_TIMEOUT_MS (its own time on a thread, waiting excluded); past
//   it the search is answered 400 (the pattern's cost is the client's, as for an invalid one);
// - at most SEARCH_THREADS + SEARCH_QUEUE searches are under way; one more is answered 503 with
//   Retry-After, as is a search that waited SEARCH_TIMEOUT_MS in all for a free thread (the
//   server's capacity, not the pattern).
//
// A running task is never aborted. Ending a worker thread does not end a native RE2 call in
// progress: the thread runs on until the call returns, and piscina would start a replacement
// beside it, so repeated slow searches could occupy every core. Instead the task stops at its next
// check between two RE2 calls (the budget, or the cancel flag set here once the search has been
// answered), and its thread counts as busy until then: search never uses more than
// SEARCH_THREADS threads, and the cost bound keeps "until then" a fraction of a second
// (docs/search.md).
import { fileURLToPath } from 'node:url'
import { Piscina } from 'piscina'
import { ContractError, badRequest } from '../errors.js'
import type { SearchText, TextMatcher } from '../store/types.js'
import { tooComplex } from './search-cost.js'
import { requiredRuns } from './search-prefilter.js'
import { CANCELLED, type MatchResult, type MatchTask, STARTED } from './search-task.js'

export const MAX_QUERY_LENGTH = 500

export interface SearchLimits {
  /** Worker threads that run RE2 for this process (SEARCH_THREADS). */
  threads: number
  /** Searches that may be under way beyond `threads`, waiting for one (SEARCH_QUEUE). */
  queue: number
  /** A search's matching time on the threads, and separately its wait for one (SEARCH_TIMEOUT_MS). */
  timeoutMs: number
}

export const searchTooSlow = (timeoutMs: number) =>
  badRequest(`Search took longer than ${timeoutMs} ms: use a simpler pattern`)

export const SEARCH_BUSY = 'Too many searches are running: try again shortly'

/** The worker module next to this one: .ts under tsx (tests), .js when built (dist/). */
const WORKER = fileURLToPath(new URL(`./search-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url))

/** Idle threads end after this long; the next search starts one again (tens of milliseconds). */
const IDLE_THREAD_MS = 60_000

/**
 * A search thread's young generation, in MB (V8 gives each thread its own heap; this is two
 * semi-spaces and the young large-object space). By default V8 lets it grow to 48 MB, which a
 * thread reaches after matching a few pages: the thread only copies in a page's texts and sends
 * back numbers, so a small one is enough (docs/performance.md, "Memory").
 */
const THREAD_YOUNG_GENERATION_MB = 6

export class SearchPool {
  private readonly threads: Piscina<MatchTask, MatchResult>
  /** Searches under way, counted until the last task of each has settled. */
  private admitted = 0
  private readonly retryAfter: string

  constructor(readonly limits: SearchLimits) {
    this.threads = new Piscina<MatchTask, MatchResult>({
      filename: WORKER,
      // No thread at start-up; each starts with the first search that needs it.
      minThreads: 0,
      maxThreads: limits.threads,
      idleTimeout: IDLE_THREAD_MS,
      resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB },
      // The threads keep the main thread's priority: at a lower one (nice +10) a busy main thread,
      // as under the mixed load of test/system/load.test.ts, runs ahead of them until searches
      // wait out their budget (503). Their number is what leaves the main threads CPU.
    })
    this.retryAfter = String(Math.max(1, Math.ceil(limits.timeoutMs / 1000)))
  }

  /**
   * A search of `query`, admitted; its matchPage is what the store calls. The caller must call
   * end() when the search is over, answered or failed. Throws 400 for a query over
   * MAX_QUERY_LENGTH or over the cost bound, and 503 when SEARCH_THREADS + SEARCH_QUEUE searches
   * are under way.
   */
  start(query: string): Search {
    if (query.length > MAX_QUERY_LENGTH) throw badRequest(`query must be at most ${MAX_QUERY_LENGTH} characters`)
    // Before RE2 sees it: a pattern both invalid and too costly is answered as too costly.
    const why = tooComplex(query)
    if (why !== undefined) throw badRequest(`query is too complex: ${why}`)
    if (this.admitted >= this.limits.threads + this.limits.queue) throw this.busy()
    this.admitted++
    return new Search(query, this.limits.timeoutMs, {
      run: (task) => this.threads.run(task),
      busy: () => this.busy(),
      release: () => this.admitted--,
    })
  }

  /** Searches under way (tests). */
  get underWay(): number {
    return this.admitted
  }

  /** Ends the threads; one inside a long RE2 call ends when the call returns. */
  close(): Promise<void> {
    return this.threads.destroy()
  }

  private busy(): ContractError {
    return new ContractError(503, SEARCH_BUSY, true, { 'retry-after': this.retryAfter })
  }
}

interface PoolSide {
  run(task: MatchTask): Promise<MatchResult>
  busy(): ContractError
  release(): void
}

/** One search: the matcher the store calls page by page, with the search's budget. */
export class Search implements TextMatcher {
  readonly runs: readonly string[] | undefined
  /** Time the search's tasks have run on a thread, and waited for one, so far. */
  private matchedMs = 0
  private waitedMs = 0
  private pages = 0
  /** Settles when every task sent so far has settled. */
  private settled: Promise<unknown> = Promise.resolve()
  /**
   * The control arrays of the tasks not settled yet. Once the search has its answer (a 400 or
   * 503 from one page, or end()), every one of them is cancelled: a page read ahead and queued
   * behind the one that ran out of budget would otherwise run on a thread for a budget of its
   * own after the search was answered.
   */
  private readonly pending = new Set<Int32Array>()
  private ended = false

  constructor(
    private readonly pattern: string,
    private readonly timeoutMs: number,
    private readonly pool: PoolSide,
  ) {
    this.runs = requiredRuns(pattern)
  }

  /** Which of the notes match, by index; rejects with the 400 or 503 that ends the search. */
  matchPage(notes: readonly SearchText[]): Promise<number[]> {
    this.pages++
    const texts: string[] = []
    for (const note of notes) texts.push(note.title, note.content)
    const control = new Int32Array(new SharedArrayBuffer(8))
    const sentAt = Date.now()
    const task = this.pool.run({ pattern: this.pattern, texts, control, sentAt, budgetMs: this.timeoutMs - this.matchedMs })
    this.pending.add(control)
    if (this.ended) this.cancelAll()
    void task.finally(() => this.pending.delete(control)).catch(() => {})
    // A page sent while the search's previous one is still being matched (search-pages.ts reads
    // ahead) waits behind it first: its waiting for a thread starts when the previous has settled.
    let waitFrom: number | undefined
    void this.settled.then(() => (waitFrom = Math.max(sentAt, Date.now())))
    this.settled = Promise.all([this.settled, task.catch(() => {})])
    return new Promise<number[]>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined
      let done = false
      const finish = (answer: () => void) => {
        if (done) return
        done = true
        clearTimeout(timer)
        answer()
      }
      /** Ends the search now: the thread stops at its next check (or skips the task). */
      const giveUp = (error: ContractError) => {
        this.cancelAll()
        finish(() => reject(error))
      }
      const check = () => {
        const now = Date.now()
        const started = Atomics.load(control, STARTED)
        if (started === 0) {
          const waited = this.waitedMs + (waitFrom === undefined ? 0 : now - waitFrom)
          if (waited >= this.timeoutMs) return giveUp(this.pool.busy())
          timer = setTimeout(check, this.timeoutMs - waited)
        } else {
          const matched = this.matchedMs + (now - (sentAt + started - 1))
          if (matched >= this.timeoutMs) return giveUp(searchTooSlow(this.timeoutMs))
          timer = setTimeout(check, this.timeoutMs - matched)
        }
      }
      timer = setTimeout(check, this.timeoutMs - Math.max(this.matchedMs, this.waitedMs))
      task.then(
        (result) => {
          const startedAt = sentAt + Math.max(1, Atomics.load(control, STARTED)) - 1
          this.waitedMs += Math.max(0, startedAt - (waitFrom ?? startedAt))
          this.matchedMs += Date.now() - startedAt
          if ('invalid' in result) finish(() => reject(badRequest(`query is not a supported regular expression: ${result.invalid}`)))
          else if ('stopped' in result) finish(() => reject(searchTooSlow(this.timeoutMs)))
          else finish(() => resolve(result.matched))
        },
        (err: unknown) => finish(() => reject(err instanceof Error ? err : new Error(String(err)))),
      )
    })
  }

  /** Rejects with 400 when RE2 refuses the pattern; asks a thread when no page was matched. */
  async validate(): Promise<void> {
    if (this.pages === 0) await this.matchPage([])
  }

  /**
   * The search is over: tasks still queued or running are cancelled (each stops at its thread's
   * next check), and its place is given back once its last task has settled.
   */
  end(): void {
    if (this.ended) return
    this.ended = true
    this.cancelAll()
    void this.settled.then(() => this.pool.release())
  }

  /** Sets the cancel flag of every task not settled yet. */
  private cancelAll(): void {
    for (const control of this.pending) Atomics.store(control, CANCELLED, 1)
  }
}
