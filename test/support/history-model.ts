// A model of one person's notes, trash and revision history (docs/contract.md, "Trash, history and versions"), for
// test/history-model.test.ts: what each answer should be, worked out without the server, and every text each note has
// shown, so the test can ask whether it is still reachable.
import { type NotePatch, type NoteRecord, REVISED_FIELDS } from '../../src/note-shape.js'

/** What a revision restores: a note's title, content and tags. */
export type Text = Pick<NoteRecord, (typeof REVISED_FIELDS)[number]>

export const textOf = (note: Text): Text => ({ title: note.title, content: note.content, tags: [...note.tags] })
export const sameText = (a: Text, b: Text): boolean =>
  REVISED_FIELDS.every((field) => JSON.stringify(a[field]) === JSON.stringify(b[field]))

/** A revision as get-note-history answers it, but for its _id (the server names it). */
export interface ModelRevision extends Text {
  isPinned: boolean
  editedOn: string
}

export type Place = 'live' | 'trash' | 'erased'

export interface ModelNote {
  /** The note as its last answer gave it; in the trash, as it was deleted. */
  note: NoteRecord
  place: Place
  /** The model's count of deletions when this one was deleted: the trash lists the highest first. */
  deletedAt: number
  /** Newest first, as get-note-history lists them. */
  history: ModelRevision[]
  /** How many revisions the note has ever had: the history is whole only under HISTORY_REVISIONS. */
  revisions: number
  /** Every text an answer has shown of this note, each once. */
  seen: Text[]
  /** Every version (updatedOn) answered for this note, oldest first: the stale ones make stale If-Match headers. */
  versions: string[]
}

/** The patch edit-note applies: only truthy fields (docs/contract.md, "PUT /edit-note/:noteId"), so `tags: []` clears. */
export interface EditBody {
  title?: string | undefined
  content?: string | undefined
  tags?: string[] | undefined
  isPinned?: boolean | undefined
}

export function appliedEdit(body: EditBody): NotePatch {
  const patch: NotePatch = {}
  if (body.title) patch.title = body.title
  if (body.content) patch.content = body.content
  if (body.tags) patch.tags = body.tags
  if (body.isPinned) patch.isPinned = body.isPinned
  return patch
}

export class HistoryModel {
  /** Every note added in this run, in the order it was added; an erased one stays, to check that it answers 404. */
  readonly notes: ModelNote[] = []
  private deletions = 0

  live(): ModelNote[] {
    return this.notes.filter((m) => m.place === 'live')
  }

  /** The listing: pinned first, then newest createdOn, then _id descending (src/store/list-order.ts). */
  listing(): NoteRecord[] {
    const key = (n: NoteRecord) => [n.isPinned ? 1 : 0, n.createdOn, n._id] as const
    return this.live()
      .map((m) => m.note)
      .sort((a, b) => {
        const [ka, kb] = [key(a), key(b)]
        for (let i = 0; i < ka.length; i++)
          if (ka[i] !== kb[i]) return (ka[i] as number | string) < (kb[i] as number | string) ? 1 : -1
        return 0
      })
  }

  /** The trash, most recently deleted first. */
  trash(): ModelNote[] {
    return this.notes.filter((m) => m.place === 'trash').sort((a, b) => b.deletedAt - a.deletedAt)
  }

  /** A note an answer showed: its text joins what the person saw, its version the versions. */
  shown(m: ModelNote, note: NoteRecord): void {
    if (!m.seen.some((text) => sameText(text, note))) m.seen.push(textOf(note))
    if (!m.versions.includes(note.updatedOn)) m.versions.push(note.updatedOn)
  }

  added(note: NoteRecord): ModelNote {
    const m: ModelNote = { note, place: 'live', deletedAt: 0, history: [], revisions: 0, seen: [], versions: [] }
    this.shown(m, note)
    this.notes.push(m)
    return m
  }

  /** A write that applied: a change of text keeps the state before it as the newest revision. */
  changed(m: ModelNote, note: NoteRecord): void {
    const before = m.note
    if (!sameText(before, note)) {
      m.history.unshift({ ...textOf(before), isPinned: before.isPinned, editedOn: before.updatedOn })
      m.revisions++
    }
    m.note = note
    this.shown(m, note)
  }

  deleted(m: ModelNote): void {
    m.place = 'trash'
    m.deletedAt = ++this.deletions
  }

  restored(m: ModelNote, note: NoteRecord): void {
    m.place = 'live'
    m.note = note
    this.shown(m, note)
  }

  /** Deleted forever: the note and its history are gone. */
  erased(m: ModelNote): void {
    m.place = 'erased'
    m.history = []
  }
}
