// The one replica the sync engine works on (engine.ts): the notes as the server last listed them,
// the feed's cursor they are current to, and the outbox of changes made here. The feed follower
// (feed-follower.ts) brings the server's changes into it and the outbox sender (outbox-sender.ts)
// the answers to what it sent. Every write goes to memory at once and on to IndexedDB
// (replica-db.ts); a failed write there is ignored, as the page goes on from memory.
import type { Note } from '../api'
import type { FeedChange } from './feed'
import type { Waiting } from './outbox'
import { ReplicaDb, deleteOtherReplicas } from './replica-db'

export class Replica {
  notes = new Map<string, Note>()
  outbox: Waiting[] = []
  cursor: string | undefined
  /** Whether the notes are a listing: kept from an earlier page with its cursor, or listed since. */
  listed = false
  private seq = 1
  private db: ReplicaDb | undefined

  constructor(readonly userId: string) {}

  /** Loads what this device keeps of the account; false when there is no IndexedDB to keep it in. */
  async open(): Promise<boolean> {
    try {
      this.db = await ReplicaDb.open(this.userId)
      const loaded = await this.db.load()
      this.notes = new Map(loaded.notes.map((n) => [n._id, n]))
      // A conflict held for an editor of an earlier page, or a refusal, is tried again.
      this.outbox = loaded.outbox.map(({ held: _held, refused: _refused, ...w }) => w)
      this.seq = Math.max(0, ...this.outbox.map((w) => w.seq)) + 1
      this.cursor = loaded.cursor
      if (this.cursor !== undefined) this.listed = true
      void deleteOtherReplicas(this.userId).catch(() => undefined)
      return true
    } catch {
      // No IndexedDB (a private window that refuses it): the app works from the network alone.
      this.db = undefined
      return false
    }
  }

  close(): void {
    this.db?.close()
  }

  /** The seq of the next change made here: the outbox's order, and its key in IndexedDB. */
  nextSeq(): number {
    return this.seq++
  }

  /** Notes changed or deleted, and the cursor just after them (undefined: the cursor stays). */
  apply(changes: FeedChange[], cursor: string | undefined): void {
    for (const { noteId, note } of changes) void (note ? this.notes.set(noteId, note) : this.notes.delete(noteId))
    if (cursor !== undefined) this.cursor = cursor
    void this.db?.apply(changes, cursor).catch(() => undefined)
  }

  /** The whole listing again (a first visit, or an expired cursor). */
  async replace(notes: Map<string, Note>, cursor: string): Promise<void> {
    this.notes = notes
    this.cursor = cursor
    this.listed = true
    await this.db?.replace([...notes.values()], cursor).catch(() => undefined)
  }

  /** `unsent`: how many of the outbox's changes wait for the network. */
  saveOutbox(unsent: number): void {
    void this.db?.saveOutbox(this.outbox, unsent).catch(() => undefined)
  }
}
