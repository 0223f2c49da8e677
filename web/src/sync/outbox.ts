// The outbox: the changes made on this device that the server has not taken yet, in the order they
// were made, and what the notes look like with them applied to the replica. Pure functions (no
// IndexedDB, no network), so that test/web-outbox.test.ts checks them against a model.
//
// Each change names the note's version it was made on (`base`, sent as If-Match). A note added
// here has a local id (`local-…`) and no version until the server answers; the changes after it
// then take the server's id and version. Changes to one note coalesce while they wait: two edits
// send the last text once, a delete of a note added here cancels its add. A change being sent is
// never rewritten.
import type { Note, NoteFields } from '../api.js'
import { compareNotes } from '../note-order.js'

export type Change =
  | { kind: 'add'; noteId: string; fields: NoteFields }
  | { kind: 'edit'; noteId: string; base: string; fields: NoteFields }
  | { kind: 'pin'; noteId: string; base: string; isPinned: boolean }
  | { kind: 'delete'; noteId: string; base: string }

export interface Waiting {
  /** The order changes were made in; also the key in IndexedDB. */
  seq: number
  change: Change
  /** When it was made: a local note's createdOn until the server gives its own. */
  madeOn: string
  /** A conflict the open editor is showing: not sent again until the person chooses. */
  held?: boolean
  /** What the server said when it refused the change (400, 413...): kept, not sent again until edited. */
  refused?: string
}

export const LOCAL_PREFIX = 'local-'
export const isLocalId = (id: string) => id.startsWith(LOCAL_PREFIX)

/** The title of the note that keeps a person's text when the note changed elsewhere meanwhile. */
export const conflictTitle = (title: string) => `${title} (conflict)`

/** `outbox` with `change` made at `madeOn`; `sending` is the seq of the change on its way, left alone. */
export function enqueue(
  outbox: readonly Waiting[],
  change: Change,
  seq: number,
  madeOn: string,
  sending?: number,
): Waiting[] {
  const open = (w: Waiting) => w.seq !== sending && !w.held && w.change.noteId === change.noteId
  const added = outbox.find((w) => open(w) && w.change.kind === 'add')
  const next = { seq, change, madeOn }
  switch (change.kind) {
    case 'add':
      return [...outbox, next]
    case 'edit': {
      // The last text of a note added here is what its add sends.
      if (added?.change.kind === 'add') {
        const merged: Change = { ...added.change, fields: change.fields }
        return outbox.map((w) => (w === added ? withoutRefusal({ ...w, change: merged }) : w))
      }
      const edited = outbox.find((w) => open(w) && w.change.kind === 'edit')
      if (edited?.change.kind === 'edit') {
        const merged: Change = { ...edited.change, fields: change.fields }
        return outbox.map((w) => (w === edited ? withoutRefusal({ ...w, change: merged }) : w))
      }
      return [...outbox, next]
    }
    case 'pin': {
      const pinned = outbox.find((w) => open(w) && w.change.kind === 'pin')
      if (pinned?.change.kind === 'pin') {
        const merged: Change = { ...pinned.change, isPinned: change.isPinned }
        return outbox.map((w) => (w === pinned ? { ...w, change: merged } : w))
      }
      return [...outbox, next]
    }
    case 'delete':
      // A note added here and never sent: deleting it leaves nothing to send.
      if (added) return outbox.filter((w) => !open(w))
      // The delete is what the person wants of the note now; waiting pins and edits of it go.
      return [...outbox.filter((w) => !open(w)), next]
  }
}

function withoutRefusal(w: Waiting): Waiting {
  const rest = { ...w }
  delete rest.refused
  return rest
}

/**
 * The next change to send: the first one whose note has no earlier change waiting (a note's
 * changes go in order), that is not held or refused, and that names a note the server knows.
 */
export function nextToSend(outbox: readonly Waiting[]): Waiting | undefined {
  const blocked = new Set<string>()
  for (const w of outbox) {
    const id = w.change.noteId
    if (!blocked.has(id) && !w.held && !w.refused && (w.change.kind === 'add' || !isLocalId(id))) return w
    blocked.add(id)
  }
  return undefined
}

/** The outbox after the server took `sent`, answering `saved` (undefined for a delete). */
export function taken(outbox: readonly Waiting[], sent: Waiting, saved: Note | undefined): Waiting[] {
  const base = sent.change.kind === 'add' ? '' : sent.change.base
  return outbox
    .filter((w) => w.seq !== sent.seq)
    .map((w) => {
      if (!saved || w.change.noteId !== sent.change.noteId || w.change.kind === 'add') return w
      return {
        ...w,
        change: { ...w.change, noteId: saved._id, base: w.change.base === base ? saved.updatedOn : w.change.base },
      }
    })
}

/** What the server's answer to a waiting change means for the outbox and the replica. */
export type Answer =
  | { kind: 'saved'; note: Note }
  | { kind: 'deleted' }
  | { kind: 'conflict'; theirs: Note }
  | { kind: 'gone' }
  | { kind: 'refused'; message: string }

export interface Settled {
  outbox: Waiting[]
  /** The note as the server has it now, for the replica. */
  put?: Note
  /** A note the server no longer lists. */
  drop?: string
  /** What to tell the person (a delete not done because the note changed elsewhere). */
  notice?: string
}

/**
 * How a change sent from the outbox (nobody waiting for its answer) settles. Nothing typed is
 * dropped: an edit that meets a newer version becomes a new note "<title> (conflict)" with the
 * person's text (unless `held`: the open editor shows the choice); an edit of a note deleted
 * elsewhere becomes a new note with its text; a pin is made again on the newer version; a delete
 * of a note changed elsewhere is not done, so the other text stays.
 */
export function settle(
  outbox: readonly Waiting[],
  sent: Waiting,
  answer: Answer,
  localId: string,
  held = false,
): Settled {
  const rest = () => outbox.filter((w) => w.seq !== sent.seq)
  const replace = (w: Waiting) => outbox.map((x) => (x.seq === sent.seq ? w : x))
  const change = sent.change
  switch (answer.kind) {
    case 'saved':
      return { outbox: taken(outbox, sent, answer.note), put: answer.note }
    case 'deleted':
      return { outbox: taken(outbox, sent, undefined), drop: change.noteId }
    case 'refused':
      return { outbox: replace({ ...sent, refused: answer.message }) }
    case 'conflict': {
      const theirs = answer.theirs
      if (change.kind === 'edit') {
        if (held) return { outbox: replace({ ...sent, held: true }), put: theirs }
        const add: Change = {
          kind: 'add',
          noteId: localId,
          fields: { ...change.fields, title: conflictTitle(change.fields.title) },
        }
        return { outbox: replace({ ...sent, change: add }), put: theirs }
      }
      if (change.kind === 'pin')
        return { outbox: replace({ ...sent, change: { ...change, base: theirs.updatedOn } }), put: theirs }
      return { outbox: rest(), put: theirs, notice: `“${theirs.title}” was changed elsewhere, so it was not deleted.` }
    }
    case 'gone': {
      if (change.kind !== 'edit') return { outbox: rest(), drop: change.noteId }
      // Deleted elsewhere: the text comes back as a note of its own, and what waits for the note follows it.
      const add: Change = { kind: 'add', noteId: localId, fields: change.fields }
      const moved = outbox.map((w) =>
        w.seq === sent.seq
          ? { ...sent, change: add }
          : w.change.noteId === change.noteId
            ? { ...w, change: { ...w.change, noteId: localId, base: '' } }
            : w,
      )
      return { outbox: moved, drop: change.noteId }
    }
  }
}

/** The notes as this device shows them: the replica with every waiting change applied, in the API's order. */
export function view(replica: ReadonlyMap<string, Note>, outbox: readonly Waiting[], userId: string): Note[] {
  if (outbox.length === 0) return [...replica.values()].sort(compareNotes)
  const notes = new Map(replica)
  for (const { change, madeOn } of outbox) {
    const note = notes.get(change.noteId)
    if (change.kind === 'add') {
      notes.set(change.noteId, {
        _id: change.noteId,
        ...change.fields,
        isPinned: note?.isPinned ?? false,
        userId,
        createdOn: madeOn,
        updatedOn: madeOn,
      })
    } else if (note && change.kind === 'edit') {
      notes.set(change.noteId, { ...note, ...change.fields })
    } else if (note && change.kind === 'pin') {
      notes.set(change.noteId, { ...note, isPinned: change.isPinned })
    } else if (change.kind === 'delete') {
      notes.delete(change.noteId)
    }
  }
  return [...notes.values()].sort(compareNotes)
}
