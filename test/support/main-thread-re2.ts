// RE2 runs on the search threads only (docs/search.md). One call on this thread, where the
// in-process server's event loop runs, is what stalls every other request for as long as the call
// takes. The tests count such calls instead of timing the loop: on a busy machine the loop's delay
// tells more about the machine than about the service (bench/search-isolation.ts gives the figures).
import RE2 from 're2'

export interface RE2Calls {
  /** Calls of any RE2 method on this thread since the count began, by method name. */
  calls(): string[]
  /** Puts the methods back. */
  stop(): void
}

/** Wraps every method of RE2's prototype in this thread's module instance (worker threads load their own). */
export function countMainThreadRE2(): RE2Calls {
  const prototype = RE2.prototype as unknown as Record<string | symbol, unknown>
  const seen: string[] = []
  const originals = new Map<string | symbol, (...args: unknown[]) => unknown>()
  for (const key of Reflect.ownKeys(prototype)) {
    // Accessors (source, flags, lastIndex) are read, not wrapped: only methods match text.
    const original = Object.getOwnPropertyDescriptor(prototype, key)?.value as unknown
    if (key === 'constructor' || typeof original !== 'function') continue
    originals.set(key, original as (...args: unknown[]) => unknown)
    prototype[key] = function (this: unknown, ...args: unknown[]) {
      seen.push(String(key))
      return (original as (...args: unknown[]) => unknown).apply(this, args)
    }
  }
  if (originals.size === 0) throw new Error('RE2.prototype has no methods to count')
  return {
    calls: () => [...seen],
    stop() {
      for (const [key, original] of originals) prototype[key] = original
    },
  }
}
