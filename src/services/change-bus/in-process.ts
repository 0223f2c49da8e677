// The bus of a single process (SQLite without --workers): publishing is delivering.
import type { ChangeBus } from './bus.js'
import { Listeners } from './listeners.js'

export function inProcessBus(): ChangeBus {
  const listeners = new Listeners()
  let closed = false
  return {
    driver: 'in-process',
    publish: (event) => {
      if (!closed) listeners.change(event)
    },
    subscribe: (listener) => listeners.add(listener),
    close: async () => {
      closed = true
      listeners.clear()
    },
  }
}
