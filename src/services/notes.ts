// The note rules of the contract (docs/contract.md, "Endpoints"), written once for every store:
// ownership (every lookup carries the token's user), truthy-only edits, pin semantics. The list
// order is the store's (src/store/list-order.ts).
import type { NoteQuotaConfig } from '../config.js'
import { ContractError, noteLimitMessage, noteNotFound, storageLimitMessage } from '../errors.js'
import { NOTE_INPUT_FIELDS, type NoteInputField, type NotePatch, type NoteRecord, emptyInput } from '../note-shape.js'
import { type CheckedVersions, type JsonText, type NoteQuota, NoteQuotaExceededError, type Store } from '../store/types.js'
import { isWellFormedId, newId } from './ids.js'
import type { SearchPool } from './search-pool.js'

/** What POST /add-note takes: title and content, and any other field but isPinned. */
export type NewNote = Pick<NoteRecord, 'title' | 'content'> & Omit<NotePatch, 'isPinned'>

/** The store's form of the configured quota: bytes instead of MB; undefined when both are off. */
export function noteQuotaOf(config: NoteQuotaConfig): NoteQuota | undefined {
  if (config.notes === 0 && config.megabytes === 0) return undefined
  return { notes: config.notes, bytes: config.megabytes * 2 ** 20 }
}

/** The given fields of `from`, copied so that no key beyond the note's fields reaches the store. */
function pick(from: NotePatch, fields: readonly NoteInputField[]): NotePatch {
  return Object.fromEntries(fields.filter((field) => from[field] !== undefined).map((field) => [field, from[field]]))
}

export class NoteService {
  private readonly quota: NoteQuota | undefined

  /**
   * `quotaConfig`: what one account may keep (MAX_NOTES_PER_ACCOUNT, MAX_NOTE_MB_PER_ACCOUNT);
   * a write that would pass it is answered 403 naming the limit. Deletes are never held to it.
   */
  constructor(
    private readonly store: Store,
    private readonly searches: SearchPool,
    private readonly quotaConfig: NoteQuotaConfig = { notes: 0, megabytes: 0 },
  ) {
    this.quota = noteQuotaOf(quotaConfig)
  }

  /** The store's quota refusal in the words of the limit it met. */
  private quotaAnswer(err: unknown): unknown {
    if (!(err instanceof NoteQuotaExceededError)) return err
    return new ContractError(403, err.limit === 'notes' ? noteLimitMessage(this.quotaConfig.notes) : storageLimitMessage(this.quotaConfig.megabytes))
  }

  /** The note added, or undefined when the account is gone (the route answers 401). */
  async add(userId: string, input: NewNote): Promise<NoteRecord | undefined> {
    const now = new Date().toISOString()
    const given = pick(input, NOTE_INPUT_FIELDS.filter((field) => field !== 'isPinned'))
    const note: NoteRecord = { _id: newId(), ...emptyInput(), ...given, userId, createdOn: now, updatedOn: now }
    try {
      return (await this.store.insertNote(note, this.quota)) ? note : undefined
    } catch (err) {
      throw this.quotaAnswer(err)
    }
  }

  /**
   * Applies only the truthy fields (docs/contract.md, "PUT /edit-note/:noteId"): `isPinned: false`
   * does not unpin.
   */
  async edit(userId: string, noteId: string, edit: NotePatch): Promise<NoteRecord> {
    const truthy = NOTE_INPUT_FIELDS.filter((field) => edit[field])
    return this.patch(userId, noteId, pick(edit, truthy))
  }

  /**
   * Stores `isPinned` whenever it is present, false included (docs/contract.md,
   * "PUT /update-note-pinned/:noteId").
   */
  async setPinned(userId: string, noteId: string, isPinned: boolean | undefined): Promise<NoteRecord> {
    return this.patch(userId, noteId, isPinned === undefined ? {} : { isPinned })
  }

  async delete(userId: string, noteId: string): Promise<NoteRecord> {
    const note = isWellFormedId(noteId) ? await this.store.deleteNote(userId, noteId) : undefined
    if (!note) throw noteNotFound()
    return note
  }

  /** The user's notes as JSON text, in list order (the driver builds it; see Store.listNotesJson). */
  listJson(userId: string, checked?: CheckedVersions): Promise<JsonText> {
    return this.store.listNotesJson(userId, checked)
  }

  /**
   * The matching notes as JSON text. RE2 runs on the search threads (search-pool.ts): a pattern
   * RE2 refuses, or one that runs past the budget, is a 400; no thread free in time, a 503.
   */
  async searchJson(userId: string, query: string): Promise<string> {
    const search = this.searches.start(query)
    try {
      const json = await this.store.searchNotesJson(userId, search)
      // A user without candidates sent no page: the pattern is still checked (docs/contract.md,
      // "GET /search-notes": 400).
      await search.validate()
      return json
    } finally {
      search.end()
    }
  }

  /** An empty patch saves the note unchanged: the current note is returned, updatedOn kept. */
  private async patch(userId: string, noteId: string, patch: NotePatch): Promise<NoteRecord> {
    if (!isWellFormedId(noteId)) throw noteNotFound()
    const empty = Object.keys(patch).length === 0
    let note: NoteRecord | undefined
    try {
      note = empty ? await this.store.findNote(userId, noteId) : await this.store.updateNote(userId, noteId, patch, new Date().toISOString(), this.quota)
    } catch (err) {
      throw this.quotaAnswer(err)
    }
    if (!note) throw noteNotFound()
    return note
  }
}
