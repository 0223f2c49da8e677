// The listeners of one process's bus: every driver delivers to them, its own publishes at once.
import type { BusListener, ChangeEvent } from './bus.js'

export class Listeners {
  private readonly all = new Set<BusListener>()

  add(listener: BusListener): () => void {
    // A wrapper, so that one listener subscribed twice is two subscriptions.
    const entry: BusListener = { change: (e) => listener.change(e), resync: () => listener.resync() }
    this.all.add(entry)
    return () => void this.all.delete(entry)
  }

  /** A listener that throws must not keep the event from the others, nor fail the write that published it. */
  change(event: ChangeEvent): void {
    for (const listener of this.all) {
      try {
        listener.change(event)
      } catch {
        // Each listener guards its own work (services/streams.ts); nothing to undo here.
      }
    }
  }

  resync(): void {
    for (const listener of this.all) {
      try {
        listener.resync()
      } catch {
        // As in change().
      }
    }
  }

  clear(): void {
    this.all.clear()
  }
}
