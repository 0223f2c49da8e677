// One run of a check for every caller that asked since the last run, at the end of the event
// loop's turn. Used by the SQLite store for its data_version check (sqlite/data-version.ts) and by
// the PostgreSQL store before it answers an account from memory (postgres/account-cache.ts).

/**
 * `check`, shared: the returned function resolves once `check` has run after it was called. Every
 * call made before that run waits for the same run, which happens in the event loop's check phase
 * (setImmediate), after the poll phase that read the requests of those calls: so the check is
 * always later than the arrival of every request it serves, and a commit that another process
 * acknowledged before a request was sent is seen by that request, as with a check per lookup.
 * Under load one check serves the dozens of requests read in one turn of the loop; alone, a
 * request waits for the end of its turn (microseconds). A failing check rejects its callers.
 */
export function sharedCheck(check: () => void): () => Promise<void> {
  let next: Promise<void> | undefined
  const run = (resolve: () => void, reject: (err: unknown) => void) => {
    setImmediate(() => {
      // Calls from here on wait for the next run: this one may already be under way for them.
      next = undefined
      try {
        check()
        resolve()
      } catch (err) {
        reject(err)
      }
    })
  }
  return () => (next ??= new Promise<void>(run))
}
