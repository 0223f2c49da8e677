// What the main thread (search-pool.ts) and a search thread (search-worker.ts) exchange for one
// page of a search, apart from the worker so that the main thread does not load it.

/** Slots of MatchTask.control, an Int32Array over a SharedArrayBuffer. */
export const STARTED = 0
export const CANCELLED = 1

export interface MatchTask {
  pattern: string
  /** Title and content of each note in turn: [title0, content0, title1, content1, ...]. */
  texts: string[]
  /**
   * Shared with the main thread: the thread sets STARTED when the task starts (milliseconds after
   * `sentAt`, plus 1, so that 0 means "still waiting"); the main thread sets CANCELLED to 1 when
   * it no longer wants the answer.
   */
  control: Int32Array
  /** Date.now() on the main thread when the task was sent. */
  sentAt: number
  /** Milliseconds this task may match before it stops: what the search's budget has left. */
  budgetMs: number
}

/** The indexes of the notes whose title or content matches; or why there are none. */
export type MatchResult = { matched: number[] } | { invalid: string } | { stopped: true }
