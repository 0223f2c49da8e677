// Lookups of one kind, made together: every call made in one turn of the event loop is answered
// by one read of all their keys, sent at the end of that turn (setImmediate, after the poll phase
// that read the requests). A call never joins a read already under way: it waits for the next
// one, so every answer is read after the call was made, and so after its request arrived.

/** `readMany` answers a batch of distinct keys; a key it leaves out resolves to undefined. */
export function perTurn<K, V>(readMany: (keys: K[]) => Promise<Map<K, V>>): (key: K) => Promise<V | undefined> {
  type Waiter = { resolve: (value: V | undefined) => void; reject: (err: unknown) => void }
  let next = new Map<K, Waiter[]>()
  /** A read is under way or about to be sent: calls wait for the next one. */
  let busy = false
  const send = async (): Promise<void> => {
    const batch = next
    next = new Map()
    try {
      const found = await readMany([...batch.keys()])
      for (const [key, waiters] of batch) for (const w of waiters) w.resolve(found.get(key))
    } catch (err) {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(err)
    }
    // Calls made meanwhile waited for this read to end: send theirs at once.
    if (next.size > 0) void send()
    else busy = false
  }
  return (key) =>
    new Promise((resolve, reject) => {
      const waiting = next.get(key)
      if (waiting) waiting.push({ resolve, reject })
      else next.set(key, [{ resolve, reject }])
      if (!busy) {
        busy = true
        setImmediate(() => void send())
      }
    })
}

/**
 * `read`, once per turn for every caller of that turn: one promise shared by all of them, whose
 * read starts in the check phase after the last of them called (setImmediate). A call made once
 * that read has started waits for the next one, so every answer is read after the call was made.
 */
export function oncePerTurn<V>(read: () => Promise<V>): () => Promise<V> {
  let next: Promise<V> | undefined
  const afterTurn = (resolve: () => void) => setImmediate(resolve)
  const start = () => {
    next = undefined
    return read()
  }
  return () => (next ??= new Promise<void>(afterTurn).then(start))
}
