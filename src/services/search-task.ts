// What search-pool.ts and search-worker.ts exchange, apart from the worker so that the main thread does not load RE2.

/** The slot of MatchTask.control (an Int32Array over a SharedArrayBuffer) a thread sets to 1 as it starts the task. */
export const STARTED = 0

export interface MatchTask {
  pattern: string
  /** [title0, content0, title1, content1, ...] */
  texts: string[]
  control: Int32Array
  /** The end of the search's budget (Date.now() time). */
  deadline: number
}

export type MatchResult = { matched: number[] } | { invalid: string } | { stopped: true }
