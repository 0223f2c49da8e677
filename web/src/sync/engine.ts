// Keeps this device's replica current and sends what was changed here: a feed follower
// (feed-follower.ts) and an outbox sender (outbox-sender.ts) over one replica (replica.ts). On
// start it shows the replica at once, catches up with the feed, sends the outbox, then follows the
// change stream. Every change made here goes through the outbox (outbox.ts): online it is sent at
// once and its caller gets the server's answer (a 412 or 404 to show); offline, or when the
// network fails on the way, the caller gets the note as this device now shows it and the change
// waits. The page tells the engine which note its editor holds (`hold`), whose conflicts wait for
// the person's choice.
// Loaded as a chunk of its own (web/src/notes-state.ts imports it), outside the first download.
import type { Note, NoteFields } from '../api'
import { FeedFollower } from './feed-follower'
import type { Client } from './feed'
import { type Change, view } from './outbox'
import { OutboxSender } from './outbox-sender'
import { Replica } from './replica'
import { type SyncStatus, syncStatus } from './status'

export type { Client } from './feed'
export type { SyncStatus } from './status'
export { deleteReplica } from './replica-db'
export { localMatcher, localSearch } from './offline-search'
export { SyncIndicator } from './SyncIndicator'

export interface SyncEvents {
  /** The notes as this device shows them; first called once there is a listing. */
  notes(notes: Note[]): void
  status(status: SyncStatus): void
  /** The first listing failed and there is no replica to show. */
  loadFailed(message: string): void
  sessionEnded(): void
  notice(message: string): void
  /** An edit sent from the outbox met a newer version of the held note; `seq` is held until released. */
  conflict(seq: number, mine: NoteFields, theirs: Note): void
}

export class SyncEngine {
  private readonly replica: Replica
  private readonly sender: OutboxSender
  private readonly follower: FeedFollower
  /** Whether the last request reached the server. */
  private reachable = true
  private readonly ready: Promise<void>

  constructor(
    token: string,
    userId: string,
    private readonly events: SyncEvents,
    client: Client,
  ) {
    this.replica = new Replica(userId)
    this.sender = new OutboxSender(token, client, this.replica, {
      online: () => this.online,
      reached: () => (this.reachable = true),
      unreachable: () => this.unreachable(),
      changed: () => this.emit(),
      sessionEnded: () => events.sessionEnded(),
      notice: (message) => events.notice(message),
      conflict: (seq, mine, theirs) => events.conflict(seq, mine, theirs),
    })
    this.follower = new FeedFollower(token, client, this.replica, {
      reached: () => (this.reachable = true),
      unreachable: () => this.unreachable(),
      changed: () => this.emit(),
      caughtUp: () => void this.sender.flush(),
      sessionEnded: () => events.sessionEnded(),
      loadFailed: (message) => events.loadFailed(message),
    })
    this.ready = this.replica.open().then((loaded) => {
      if (loaded) this.emit()
    })
    window.addEventListener('online', this.onOnline)
    window.addEventListener('offline', this.onOffline)
    void this.ready.then(() => this.follower.run())
  }

  private readonly onOnline = () => {
    this.follower.retry()
    this.status()
  }

  private readonly onOffline = () => {
    this.status()
    this.follower.dropStream()
  }

  get online(): boolean {
    return navigator.onLine && this.reachable
  }

  stop(): void {
    this.sender.stop()
    this.follower.stop()
    window.removeEventListener('online', this.onOnline)
    window.removeEventListener('offline', this.onOffline)
    void this.ready.then(() => this.replica.close())
  }

  /** The note open in the editor (undefined: none): an outbox edit of it that meets a newer version waits for the person's choice. */
  hold(noteId: string | undefined): void {
    this.sender.hold(noteId)
  }

  /** A note changed by this page outside the outbox (restored from the trash, a revision restored). */
  put(note: Note): void {
    this.replica.apply([{ noteId: note._id, note }], undefined)
    this.emit()
  }

  /** The waiting change `seq` whose conflict the editor showed: the person chose, so it goes. */
  release(seq: number): void {
    this.sender.release(seq)
  }

  /** Sends `change` (online) or keeps it for later; resolves with the note as it is then. */
  async submit(change: Change): Promise<Note | undefined> {
    await this.ready
    return this.sender.submit(change)
  }

  private emit(): void {
    const { replica } = this
    if (replica.listed) this.events.notes(view(replica.notes, this.sender.shown(), replica.userId))
    this.status()
  }

  private status(): void {
    this.events.status(syncStatus(this.online, this.replica.outbox))
  }

  private unreachable(): void {
    this.reachable = false
    this.status()
    this.follower.wake()
  }
}
