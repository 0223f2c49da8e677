// Lookups of one turn of the event loop share one read, sent at its end (setImmediate). A call
// never joins a read already under way, so every answer is read after its request arrived.

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

/** `read`, once per turn: one promise for every caller of the turn, read in the check phase after the last call. */
export function oncePerTurn<V>(read: () => Promise<V>): () => Promise<V> {
  let next: Promise<V> | undefined
  const afterTurn = (resolve: () => void) => setImmediate(resolve)
  const start = () => {
    next = undefined
    return read()
  }
  return () => (next ??= new Promise<void>(afterTurn).then(start))
}
