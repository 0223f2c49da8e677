// Keeps this device's replica current and sends what was changed here. On start it shows the
// replica at once, catches up with GET /get-changes (a 410 lists everything again), sends the
// outbox, then holds GET /stream-changes and applies each change as it comes; a stream that ends
// or fails is opened again with Last-Event-ID after a growing wait (the stream's `retry:`, 1 s
// until it sends one, doubling to 30 s, with jitter; or the server's Retry-After), at once when
// the browser says it is online again.
// Every change made here goes through the outbox (outbox.ts): online it is sent at once and its
// caller gets the server's answer (a 412 or 404 to show); offline, or when the network fails on
// the way, the caller gets the note as this device now shows it and the change waits.
// Loaded as a chunk of its own (web/src/notes-state.ts imports it), outside the first download.
import type { Note, NoteFields } from '../api'
import { type Client, CursorExpired, type FeedChange, StreamRefused, changesSince, holdStream, listAll, statusOf } from './feed'
import { type Answer, type Change, LOCAL_PREFIX, type Waiting, enqueue, nextToSend, settle, view } from './outbox'
import { ReplicaDb, deleteOtherReplicas } from './replica-db'

export type { Client } from './feed'
export { deleteReplica } from './replica-db'
export { localMatcher, localSearch } from './offline-search'
export { SyncIndicator } from './SyncIndicator'

export interface SyncStatus {
  /** The browser says it is online and the last request reached the server. */
  online: boolean
  /** Changes made here that the server has not taken yet. */
  waiting: number
  /** Why a waiting change was refused by the server, when one was. */
  refused: string | undefined
  /** Waiting changes whose conflict the editor shows, until the person chooses. */
  held: number
}

export interface SyncEvents {
  /** The notes as this device shows them; first called once there is a listing. */
  notes(notes: Note[]): void
  status(status: SyncStatus): void
  /** The first listing failed and there is no replica to show. */
  loadFailed(message: string): void
  sessionEnded(): void
  notice(message: string): void
  /** The note open in the editor, if any: its conflicts go to the editor's choice. */
  editing(): string | undefined
  /** An edit sent from the outbox met a newer version of the open note; `seq` is held until released. */
  conflict(seq: number, mine: NoteFields, theirs: Note): void
}

const MAX_WAIT_MS = 30_000

interface Waiter {
  resolve: (note: Note | undefined) => void
  reject: (err: unknown) => void
}

export class SyncEngine {
  private replica = new Map<string, Note>()
  private outbox: Waiting[] = []
  private cursor: string | undefined
  private listed = false
  private reachable = true
  private seq = 1
  private sending: number | undefined
  private flushing = false
  private stopped = false
  private failures = 0
  /** The first wait before reconnecting: the stream's own `retry:` field, 1 s until it sends one. */
  private retryMs = 1000
  private readonly abort = new AbortController()
  private readonly waiters = new Map<number, Waiter[]>()
  /** Local ids of notes added here → the server's ids, for an editor opened before the add was sent. */
  private readonly renamed = new Map<string, string>()
  /** Version → the version this page's own pin made of it: a change started on the first is not refused for that pin. */
  private readonly successors = new Map<string, string>()
  private wake: () => void = () => undefined
  private db: ReplicaDb | undefined
  private readonly ready: Promise<void>

  constructor(
    private readonly token: string,
    private readonly userId: string,
    private readonly events: SyncEvents,
    private readonly client: Client,
  ) {
    this.ready = this.open()
    window.addEventListener('online', this.onOnline)
    window.addEventListener('offline', this.onOffline)
    void this.ready.then(() => this.run())
  }

  private readonly onOnline = () => {
    this.failures = 0
    this.status()
    this.wake()
  }

  private readonly onOffline = () => {
    this.status()
    // The stream would only notice at its next heartbeat.
    this.streamAbort?.abort()
  }

  private streamAbort: AbortController | undefined

  get online(): boolean {
    return navigator.onLine && this.reachable
  }

  stop(): void {
    this.stopped = true
    this.abort.abort()
    this.wake()
    window.removeEventListener('online', this.onOnline)
    window.removeEventListener('offline', this.onOffline)
    void this.ready.then(() => this.db?.close())
  }

  private async open(): Promise<void> {
    try {
      this.db = await ReplicaDb.open(this.userId)
      const loaded = await this.db.load()
      this.replica = new Map(loaded.notes.map((n) => [n._id, n]))
      // A conflict held for an editor of an earlier page, or a refusal, is tried again.
      this.outbox = loaded.outbox.map(({ held: _held, refused: _refused, ...w }) => w)
      this.seq = Math.max(0, ...this.outbox.map((w) => w.seq)) + 1
      this.cursor = loaded.cursor
      if (this.cursor !== undefined) this.listed = true
      this.emit()
      void deleteOtherReplicas(this.userId).catch(() => undefined)
    } catch {
      // No IndexedDB (a private window that refuses it): the app works from the network alone.
      this.db = undefined
    }
  }

  private emit(): void {
    // An add or an edit someone waits for shows once the server took it, as the editor closes;
    // a pin or a delete shows at once (and goes back if refused).
    const shown = this.outbox.filter((w) => !(this.waiters.has(w.seq) && (w.change.kind === 'add' || w.change.kind === 'edit')))
    if (this.listed) this.events.notes(view(this.replica, shown, this.userId))
    this.status()
  }

  private status(): void {
    this.events.status({ online: this.online, waiting: this.outbox.length, refused: this.outbox.find((w) => w.refused)?.refused, held: this.outbox.filter((w) => w.held).length })
  }

  private persistOutbox(): void {
    const unsent = this.outbox.filter((w) => !this.waiters.has(w.seq)).length
    void this.db?.saveOutbox(this.outbox, unsent).catch(() => undefined)
  }

  private setReplica(changes: FeedChange[], cursor: string | undefined): void {
    for (const { noteId, note } of changes) void (note ? this.replica.set(noteId, note) : this.replica.delete(noteId))
    if (cursor !== undefined) this.cursor = cursor
    void this.db?.apply(changes, cursor).catch(() => undefined)
  }

  /** A note changed by this page outside the outbox (restored from the trash, a revision restored). */
  put(note: Note): void {
    this.setReplica([{ noteId: note._id, note }], undefined)
    this.emit()
  }

  /** The waiting change `seq` whose conflict the editor showed: the person chose, so it goes. */
  release(seq: number): void {
    this.outbox = this.outbox.filter((w) => w.seq !== seq)
    this.persistOutbox()
    this.emit()
  }

  /** Sends `change` (online) or keeps it for later; resolves with the note as it is then. */
  async submit(change: Change): Promise<Note | undefined> {
    await this.ready
    const renamed = this.renamed.get(change.noteId)
    if (renamed && change.kind !== 'add') change = { ...change, noteId: renamed, base: this.replica.get(renamed)?.updatedOn ?? '' }
    if (change.kind !== 'add') {
      let base = change.base
      for (let next = this.successors.get(base); next; next = this.successors.get(base)) base = next
      change = { ...change, base }
    }
    const seq = this.seq++
    this.outbox = enqueue(this.outbox, change, seq, new Date().toISOString(), this.sending)
    const carrier =
      this.outbox.find((w) => w.seq === seq) ??
      this.outbox.find((w) => w.seq !== this.sending && w.change.noteId === change.noteId && (w.change.kind === change.kind || w.change.kind === 'add'))
    if (!carrier || !this.online) {
      this.persistOutbox()
      this.emit()
      return view(this.replica, this.outbox, this.userId).find((n) => n._id === change.noteId)
    }
    const answered = new Promise<Note | undefined>((resolve, reject) => {
      const list = this.waiters.get(carrier.seq) ?? []
      list.push({ resolve, reject })
      this.waiters.set(carrier.seq, list)
    })
    this.persistOutbox()
    this.emit()
    void this.flush()
    return answered
  }

  /** Everyone waiting for changes that now wait for the network gets the note as shown. */
  private releaseWaiters(): void {
    const shown = view(this.replica, this.outbox, this.userId)
    for (const [seq, list] of this.waiters) {
      const id = this.outbox.find((w) => w.seq === seq)?.change.noteId
      for (const w of list) w.resolve(shown.find((n) => n._id === id))
    }
    this.waiters.clear()
  }

  private async flush(): Promise<void> {
    if (this.flushing || this.stopped) return
    this.flushing = true
    try {
      for (let next = nextToSend(this.outbox); next && this.online && !this.stopped; next = nextToSend(this.outbox)) {
        this.sending = next.seq
        const answer = await this.send(next.change)
        this.reachable = true
        this.sending = undefined
        this.answered(next, answer)
      }
    } catch (err) {
      this.sending = undefined
      if (statusOf(err) === 401) {
        for (const list of this.waiters.values()) for (const w of list) w.reject(err)
        this.outbox = this.outbox.filter((w) => !this.waiters.has(w.seq))
        this.waiters.clear()
        this.persistOutbox()
        this.events.sessionEnded()
      } else {
        this.unreachable()
      }
    } finally {
      this.flushing = false
      this.releaseWaiters()
      this.persistOutbox()
      this.emit()
    }
  }

  private answered(sent: Waiting, answer: Answer & { error?: unknown }): void {
    const waiters = this.waiters.get(sent.seq)
    this.waiters.delete(sent.seq)
    const told = waiters && answer.error !== undefined && !(sent.change.kind === 'delete' && answer.kind === 'gone')
    if (told) {
      // Someone waits for this answer (the editor, a pin): they are shown it and choose.
      this.outbox = this.outbox.filter((w) => w.seq !== sent.seq)
      if (answer.kind === 'conflict') this.setReplica([{ noteId: answer.theirs._id, note: answer.theirs }], undefined)
      if (answer.kind === 'gone') this.setReplica([{ noteId: sent.change.noteId, note: null }], undefined)
      for (const w of waiters) w.reject(answer.error)
    } else {
      const held = answer.kind === 'conflict' && sent.change.kind === 'edit' && this.events.editing() === sent.change.noteId
      const localId = `${LOCAL_PREFIX}${crypto.randomUUID()}`
      const settled = settle(this.outbox, sent, answer, localId, held)
      this.outbox = settled.outbox
      if (settled.put) this.setReplica([{ noteId: settled.put._id, note: settled.put }], undefined)
      if (settled.drop) this.setReplica([{ noteId: settled.drop, note: null }], undefined)
      if (settled.put && sent.change.kind === 'add') this.renamed.set(sent.change.noteId, settled.put._id)
      if (answer.kind === 'saved' && sent.change.kind === 'pin') this.successors.set(sent.change.base, answer.note.updatedOn)
      if (settled.notice) this.events.notice(settled.notice)
      if (held && answer.kind === 'conflict' && sent.change.kind === 'edit') this.events.conflict(sent.seq, sent.change.fields, answer.theirs)
      for (const w of waiters ?? []) w.resolve(settled.put)
    }
    this.persistOutbox()
    this.emit()
  }

  /** The server's answer to one change; throws what the outbox waits out (network, 5xx, 429) and 401. */
  private async send(change: Change): Promise<Answer & { error?: unknown }> {
    const { api } = this.client
    try {
      switch (change.kind) {
        case 'add':
          return { kind: 'saved', note: (await api.addNote(this.token, change.fields)).note }
        case 'edit':
          return { kind: 'saved', note: (await api.editNote(this.token, change.noteId, change.fields, change.base)).note }
        case 'pin':
          return { kind: 'saved', note: (await api.setPinned(this.token, change.noteId, change.isPinned, change.base)).note }
        case 'delete':
          await api.deleteNote(this.token, change.noteId, change.base)
          return { kind: 'deleted' }
      }
    } catch (error) {
      const status = statusOf(error)
      if (status === 412 && 'note' in (error as object)) return { kind: 'conflict', theirs: (error as { note: Note }).note, error }
      if (status === undefined || status === 401 || status === 0 || status === 429 || status >= 500) throw error
      if (status === 404) return { kind: 'gone', error }
      return { kind: 'refused', message: (error as Error).message, error }
    }
  }

  private unreachable(): void {
    this.reachable = false
    this.status()
    this.wake()
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms)
      function done() {
        clearTimeout(timer)
        resolve()
      }
      this.wake = done
    })
  }

  private async catchUp(): Promise<void> {
    const signal = this.abort.signal
    if (this.cursor !== undefined) {
      const { changes, cursor } = await changesSince(this.client, this.token, this.cursor, signal)
      this.setReplica(changes, cursor)
    } else {
      const { notes, cursor } = await listAll(this.client, this.token, signal)
      this.replica = notes
      this.cursor = cursor
      this.listed = true
      await this.db?.replace([...notes.values()], cursor).catch(() => undefined)
    }
    this.reachable = true
    this.emit()
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      if (!navigator.onLine) {
        await this.sleep(MAX_WAIT_MS)
        continue
      }
      let wait: number | undefined
      try {
        await this.catchUp()
        // The server answers: the next wait starts from the shortest again.
        this.failures = 0
        void this.flush()
        this.streamAbort = new AbortController()
        const signal = AbortSignal.any([this.abort.signal, this.streamAbort.signal])
        await holdStream(
          this.client,
          this.token,
          this.cursor!,
          (change, cursor) => {
            this.failures = 0
            this.setReplica([change], cursor)
            this.emit()
          },
          signal,
          (ms) => (this.retryMs = ms),
        )
      } catch (err) {
        if (this.stopped) return
        if (statusOf(err) === 401) return this.events.sessionEnded()
        if (err instanceof CursorExpired) {
          this.cursor = undefined
          continue
        }
        if (err instanceof StreamRefused && err.retryAfterSeconds) wait = err.retryAfterSeconds * 1000
        else if (!(err instanceof StreamRefused) && !(err instanceof DOMException && err.name === 'AbortError')) this.unreachable()
        if (!this.listed) this.events.loadFailed(err instanceof Error ? err.message : String(err))
      }
      this.failures++
      const backoff = Math.min(MAX_WAIT_MS, this.retryMs * 2 ** Math.min(this.failures - 1, 5))
      await this.sleep(wait ?? backoff * (0.5 + Math.random() / 2))
    }
  }

  /** Tries again now (the person asked to). */
  retry(): void {
    this.failures = 0
    this.wake()
  }
}
