// The contract's note rules (docs/contract.md, "Endpoints") for every store: ownership, truthy-only edits, pinning.
import type { NoteQuotaConfig, RetentionConfig } from '../config.js'
import {
  ContractError,
  REVISION_NOT_FOUND,
  noteChanged,
  noteLimitMessage,
  noteNotFound,
  storageLimitMessage,
} from '../errors.js'
import {
  NOTE_INPUT_FIELDS,
  type NoteInputField,
  type NotePatch,
  type NoteRecord,
  REVISED_FIELDS,
  type RevisionRecord,
  type TrashedNoteRecord,
  emptyInput,
  holdsVersion,
} from '../note-shape.js'
import {
  type CheckedVersions,
  type JsonText,
  NoteQuotaExceededError,
  type NoteWrite,
  type NoteWriteTerms,
  type Store,
} from '../store/types.js'
import { isWellFormedId, newId } from './ids.js'
import type { SearchPool } from './search-pool.js'

/** If-Match's entity tags as versions (routes/if-match.ts); undefined: no condition. */
export type Expected = readonly string[] | undefined

export type NewNote = Pick<NoteRecord, 'title' | 'content'> & Omit<NotePatch, 'isPinned'>

/** What add-note takes: every input field but isPinned (a note is added unpinned). */
const ADDED_FIELDS = NOTE_INPUT_FIELDS.filter((field) => field !== 'isPinned')

/** The given fields of `from`, copied so that no key beyond the note's fields reaches the store. */
function pick(from: NotePatch, fields: readonly NoteInputField[]): NotePatch {
  return Object.fromEntries(fields.filter((field) => from[field] !== undefined).map((field) => [field, from[field]]))
}

export class NoteService {
  /**
   * A write the store refuses for its quota, opened from `quotaConfig` (store/limits.ts), is answered 403 naming the
   * limit; deletes never are. The revisions kept are the store's too.
   */
  constructor(
    private readonly store: Store,
    private readonly searches: SearchPool,
    private readonly quotaConfig: NoteQuotaConfig,
    private readonly retention: RetentionConfig,
  ) {}

  /** `write()`, with the store's quota refusal put in the words of the limit it met. */
  private async withQuotaAnswer<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write()
    } catch (err) {
      if (!(err instanceof NoteQuotaExceededError)) throw err
      throw new ContractError(
        403,
        err.limit === 'notes'
          ? noteLimitMessage(this.quotaConfig.notes)
          : storageLimitMessage(this.quotaConfig.megabytes),
      )
    }
  }

  /** The note added, or undefined when the account is gone (the route answers 401). */
  async add(userId: string, input: NewNote): Promise<NoteRecord | undefined> {
    const now = new Date().toISOString()
    const note: NoteRecord = {
      _id: newId(),
      ...emptyInput(),
      ...pick(input, ADDED_FIELDS),
      userId,
      createdOn: now,
      updatedOn: now,
    }
    return (await this.withQuotaAnswer(() => this.store.insertNote(note))) ? note : undefined
  }

  /**
   * The fields `edit` holds, which are truthy ones only (docs/contract.md, "PUT /edit-note/:noteId"): the route drops a
   * falsy field before validation as for every body (routes/falsy.ts), so `isPinned: false` never unpins here.
   */
  async edit(userId: string, noteId: string, edit: NotePatch, expected?: Expected): Promise<NoteRecord> {
    return this.patch(userId, noteId, pick(edit, NOTE_INPUT_FIELDS), expected)
  }

  /** `isPinned` whenever it is present, false included (docs/contract.md, "PUT /update-note-pinned/:noteId"). */
  async setPinned(
    userId: string,
    noteId: string,
    isPinned: boolean | undefined,
    expected?: Expected,
  ): Promise<NoteRecord> {
    return this.patch(userId, noteId, isPinned === undefined ? {} : { isPinned }, expected)
  }

  /** Moves the note to the trash (TRASH_DAYS=0: erases it with its history) and answers it as it was. */
  async delete(userId: string, noteId: string, expected?: Expected): Promise<NoteRecord> {
    if (!isWellFormedId(noteId)) throw noteNotFound()
    const trashedOn = this.retention.trashDays > 0 ? new Date().toISOString() : undefined
    return settled(await this.store.deleteNote(userId, noteId, { expected, trashedOn }))
  }

  listTrash(userId: string): Promise<TrashedNoteRecord[]> {
    return this.store.listTrash(userId)
  }

  /** The trashed note back among the notes, held to the quota as an added note is. */
  async restore(userId: string, noteId: string): Promise<NoteRecord> {
    const note = isWellFormedId(noteId)
      ? await this.withQuotaAnswer(() => this.store.restoreNote(userId, noteId, new Date().toISOString()))
      : undefined
    if (!note) throw noteNotFound()
    return note
  }

  async deleteForever(userId: string, noteId: string): Promise<void> {
    if (!isWellFormedId(noteId) || (await this.store.eraseTrash(userId, noteId)) === 0) throw noteNotFound()
  }

  /** How many trashed notes were erased. */
  emptyTrash(userId: string): Promise<number> {
    return this.store.eraseTrash(userId)
  }

  async history(userId: string, noteId: string): Promise<RevisionRecord[]> {
    const revisions = isWellFormedId(noteId) ? await this.store.noteHistory(userId, noteId) : undefined
    if (!revisions) throw noteNotFound()
    return revisions
  }

  /** The revision's title, content and tags, as a new edit: the state it replaces becomes a revision in turn. */
  async restoreRevision(userId: string, noteId: string, revisionId: string, expected?: Expected): Promise<NoteRecord> {
    const revision = (await this.history(userId, noteId)).find((r) => r._id === revisionId)
    if (!revision) throw new ContractError(404, REVISION_NOT_FOUND)
    return this.patch(userId, noteId, pick(revision, REVISED_FIELDS), expected)
  }

  /** The user's notes as JSON text, in list order (the driver builds it; see Store.listNotesJson). */
  listJson(userId: string, checked?: CheckedVersions): Promise<JsonText> {
    return this.store.listNotesJson(userId, checked)
  }

  /** RE2 runs on the search threads (search-pool.ts): a refused or over-budget pattern is a 400; no thread in time, a 503. */
  async searchJson(userId: string, query: string): Promise<string> {
    await this.searches.started()
    const search = this.searches.start(query)
    try {
      return await this.store.searchNotesJson(userId, search)
    } finally {
      search.end()
    }
  }

  /** An empty patch saves the note unchanged: the current note is returned, updatedOn kept. */
  private async patch(userId: string, noteId: string, patch: NotePatch, expected: Expected): Promise<NoteRecord> {
    if (!isWellFormedId(noteId)) throw noteNotFound()
    if (Object.keys(patch).length === 0) {
      const note = await this.store.findNote(userId, noteId)
      return settled(note && (holdsVersion(note, expected) ? { note } : { conflict: note }))
    }
    const terms: NoteWriteTerms = { expected, revisionId: newId() }
    return settled(
      await this.withQuotaAnswer(() => this.store.updateNote(userId, noteId, patch, new Date().toISOString(), terms)),
    )
  }
}

/** The note a write answers, or the 404 or 412 it meets. */
function settled(outcome: NoteWrite): NoteRecord {
  if (!outcome) throw noteNotFound()
  if ('conflict' in outcome) throw noteChanged(outcome.conflict)
  return outcome.note
}
