// Sends the changes made on this device (the outbox, outbox.ts) one at a time, in order. Online a
// change goes at once and its caller gets the server's answer (a 412 or 404 to show); offline, or
// when the network fails on the way, the caller gets the note as this device now shows it and the
// change waits for the next flush. A change sent with nobody waiting settles by outbox.ts's rules;
// an edit of the note the editor holds (`hold`) meets a newer version by waiting for the person's
// choice instead of becoming a note of its own. An add or an edit linking to files added offline
// uploads them first and sends the note with the links they got (attachments/pending.ts, fetched
// then: most notes link to none).
import type { AttachmentAnswer } from '../../../src/attachment-shape.js'
import type { Note, NoteFields } from '../api'
import { type Client, statusOf } from './feed'
import { type Answer, type Change, LOCAL_PREFIX, type Waiting, enqueue, nextToSend, settle, view } from './outbox'
import type { Replica } from './replica'

/** What the sender tells the engine that owns it. */
export interface SenderEvents {
  /** The browser says it is online and the last request reached the server. */
  online(): boolean
  /** A change reached the server. */
  reached(): void
  /** The network failed on the way: the changes wait. */
  unreachable(): void
  /** The outbox or the replica changed: the notes shown change. */
  changed(): void
  sessionEnded(): void
  notice(message: string): void
  /** An edit met a newer version of the note the editor holds; `seq` waits until released. */
  conflict(seq: number, mine: NoteFields, theirs: Note): void
}

interface Waiter {
  resolve: (note: Note | undefined) => void
  reject: (err: unknown) => void
}

export class OutboxSender {
  private sending: number | undefined
  private flushing = false
  private stopped = false
  /** The note open in the editor, if any: an edit of it that meets a newer version waits for the person. */
  private holding: string | undefined
  private readonly waiters = new Map<number, Waiter[]>()
  /** Local ids of notes added here → the server's ids, for an editor opened before the add was sent. */
  private readonly renamed = new Map<string, string>()
  /** Version → the version this page's own pin made of it: a change started on the first is not refused for that pin. */
  private readonly successors = new Map<string, string>()

  constructor(
    private readonly token: string,
    private readonly client: Client,
    private readonly replica: Replica,
    private readonly events: SenderEvents,
  ) {}

  stop(): void {
    this.stopped = true
  }

  /** The note the editor now holds (undefined: none). */
  hold(noteId: string | undefined): void {
    this.holding = noteId
  }

  /**
   * The outbox as the notes show it: an add or an edit someone waits for shows once the server
   * took it, as the editor closes; a pin or a delete shows at once (and goes back if refused).
   */
  shown(): Waiting[] {
    return this.replica.outbox.filter(
      (w) => !(this.waiters.has(w.seq) && (w.change.kind === 'add' || w.change.kind === 'edit')),
    )
  }

  /** The waiting change `seq` whose conflict the editor showed: the person chose, so it goes. */
  release(seq: number): void {
    this.replica.outbox = this.replica.outbox.filter((w) => w.seq !== seq)
    this.save()
    this.events.changed()
  }

  /** Sends `change` (online) or keeps it for later; resolves with the note as it is then. */
  async submit(change: Change): Promise<Note | undefined> {
    const replica = this.replica
    const renamed = this.renamed.get(change.noteId)
    if (renamed && change.kind !== 'add')
      change = { ...change, noteId: renamed, base: replica.notes.get(renamed)?.updatedOn ?? '' }
    if (change.kind !== 'add') {
      let base = change.base
      for (let next = this.successors.get(base); next; next = this.successors.get(base)) base = next
      change = { ...change, base }
    }
    const seq = replica.nextSeq()
    replica.outbox = enqueue(replica.outbox, change, seq, new Date().toISOString(), this.sending)
    const carrier =
      replica.outbox.find((w) => w.seq === seq) ??
      replica.outbox.find(
        (w) =>
          w.seq !== this.sending &&
          w.change.noteId === change.noteId &&
          (w.change.kind === change.kind || w.change.kind === 'add'),
      )
    if (!carrier || !this.events.online()) {
      this.save()
      this.events.changed()
      return view(replica.notes, replica.outbox, replica.userId).find((n) => n._id === change.noteId)
    }
    const answered = new Promise<Note | undefined>((resolve, reject) => {
      const list = this.waiters.get(carrier.seq) ?? []
      list.push({ resolve, reject })
      this.waiters.set(carrier.seq, list)
    })
    this.save()
    this.events.changed()
    void this.flush()
    return answered
  }

  /** Sends what waits, in order, while the network answers. */
  async flush(): Promise<void> {
    if (this.flushing || this.stopped) return
    this.flushing = true
    const replica = this.replica
    try {
      for (
        let next = nextToSend(replica.outbox);
        next && this.events.online() && !this.stopped;
        next = nextToSend(replica.outbox)
      ) {
        this.sending = next.seq
        const answer = await this.send(next.change)
        this.events.reached()
        this.sending = undefined
        this.answered(next, answer)
      }
    } catch (err) {
      this.sending = undefined
      if (statusOf(err) === 401) {
        for (const list of this.waiters.values()) for (const w of list) w.reject(err)
        replica.outbox = replica.outbox.filter((w) => !this.waiters.has(w.seq))
        this.waiters.clear()
        this.save()
        this.events.sessionEnded()
      } else {
        this.events.unreachable()
      }
    } finally {
      this.flushing = false
      this.releaseWaiters()
      this.save()
      this.events.changed()
    }
  }

  private save(): void {
    this.replica.saveOutbox(this.replica.outbox.filter((w) => !this.waiters.has(w.seq)).length)
  }

  /** Everyone waiting for changes that now wait for the network gets the note as shown. */
  private releaseWaiters(): void {
    const replica = this.replica
    const shown = view(replica.notes, replica.outbox, replica.userId)
    for (const [seq, list] of this.waiters) {
      const id = replica.outbox.find((w) => w.seq === seq)?.change.noteId
      for (const w of list) w.resolve(shown.find((n) => n._id === id))
    }
    this.waiters.clear()
  }

  private answered(sent: Waiting, answer: Answer & { error?: unknown }): void {
    const replica = this.replica
    const waiters = this.waiters.get(sent.seq)
    this.waiters.delete(sent.seq)
    const told = waiters && answer.error !== undefined && !(sent.change.kind === 'delete' && answer.kind === 'gone')
    if (told) {
      // Someone waits for this answer (the editor, a pin): they are shown it and choose.
      replica.outbox = replica.outbox.filter((w) => w.seq !== sent.seq)
      if (answer.kind === 'conflict') replica.apply([{ noteId: answer.theirs._id, note: answer.theirs }], undefined)
      if (answer.kind === 'gone') replica.apply([{ noteId: sent.change.noteId, note: null }], undefined)
      for (const w of waiters) w.reject(answer.error)
    } else {
      const held = answer.kind === 'conflict' && sent.change.kind === 'edit' && this.holding === sent.change.noteId
      const localId = `${LOCAL_PREFIX}${crypto.randomUUID()}`
      const settled = settle(replica.outbox, sent, answer, localId, held)
      replica.outbox = settled.outbox
      if (settled.put) replica.apply([{ noteId: settled.put._id, note: settled.put }], undefined)
      if (settled.drop) replica.apply([{ noteId: settled.drop, note: null }], undefined)
      if (settled.put && sent.change.kind === 'add') this.renamed.set(sent.change.noteId, settled.put._id)
      if (answer.kind === 'saved' && sent.change.kind === 'pin')
        this.successors.set(sent.change.base, answer.note.updatedOn)
      if (settled.notice) this.events.notice(settled.notice)
      if (held && answer.kind === 'conflict' && sent.change.kind === 'edit')
        this.events.conflict(sent.seq, sent.change.fields, answer.theirs)
      for (const w of waiters ?? []) w.resolve(settled.put)
    }
    this.save()
    this.events.changed()
  }

  /** `fields` with the files added offline that they link to uploaded, and linked as uploaded. */
  private async uploaded(fields: NoteFields): Promise<NoteFields> {
    if (!fields.content.includes('/attachments/local-')) return fields
    const { token, client } = this
    // A chunk that cannot be fetched is a failure the outbox waits out, as the network's.
    const { withUploads, uploadRequest } = await import('../attachments/pending').catch(() => {
      throw new TypeError('The attachments code could not be loaded')
    })
    return withUploads(this.replica.userId, fields, async (blob, name) => {
      const answer = await client.answerOf<{ attachment: AttachmentAnswer }>(uploadRequest(token, blob, name))
      return answer.attachment
    })
  }

  /** The server's answer to one change; throws what the outbox waits out (network, 5xx, 429) and 401. */
  private async send(change: Change): Promise<Answer & { error?: unknown }> {
    const { api } = this.client
    try {
      switch (change.kind) {
        case 'add':
          return { kind: 'saved', note: (await api.addNote(this.token, await this.uploaded(change.fields))).note }
        case 'edit':
          return {
            kind: 'saved',
            note: (await api.editNote(this.token, change.noteId, await this.uploaded(change.fields), change.base)).note,
          }
        case 'pin':
          return {
            kind: 'saved',
            note: (await api.setPinned(this.token, change.noteId, change.isPinned, change.base)).note,
          }
        case 'delete':
          await api.deleteNote(this.token, change.noteId, change.base)
          return { kind: 'deleted' }
      }
    } catch (error) {
      const status = statusOf(error)
      if (status === 412 && 'note' in (error as object))
        return { kind: 'conflict', theirs: (error as { note: Note }).note, error }
      if (status === undefined || status === 401 || status === 0 || status === 429 || status >= 500) throw error
      if (status === 404) return { kind: 'gone', error }
      return { kind: 'refused', message: (error as Error).message, error }
    }
  }
}
