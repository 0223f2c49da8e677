// The transfer store (notes-service import / export, and the operator's `users list`): a store of its own beside the
// Store, which the cache layer and the change bus never wrap, as only operator commands use it (open.ts,
// openCommandStore). Records keep their own ids, hashes and dates. Each driver implements it in its transfer.ts.
import type { AttachmentRecord } from '../attachment-shape.js'
import type { UserRecord } from './accounts.js'
import type { NoteField, RevisionField, TrashedNoteField } from './note-differences.js'
import type { NoteRecord, StoredRevisionRecord, TrashedNoteRecord } from '../note-shape.js'

/** What importing one user did (src/transfer): kept ids make a second run change nothing. */
export type UserImportOutcome = 'inserted' | 'exists' | 'duplicate-email'
/**
 * What importing one note did; `{differs}`: its _id is stored with other fields (note-differences.ts); 'in-trash': a
 * trashed note has its _id (a note is live or trashed, never both).
 */
export type NoteImportOutcome = 'inserted' | 'exists' | 'missing-user' | 'in-trash' | { differs: NoteField[] }
/** What importing one trashed note did: as for a note; 'live': a live note has its _id. */
export type TrashImportOutcome = 'inserted' | 'exists' | 'missing-user' | 'live' | { differs: TrashedNoteField[] }
/**
 * What importing one revision did: as for a note, `{differs}` when its note already keeps a revision with its _id or its
 * editedOn (a note has one state per version); 'missing-note': its user has no note, live or trashed, with its noteId.
 */
export type RevisionImportOutcome =
  'inserted' | 'exists' | 'missing-user' | 'missing-note' | { differs: RevisionField[] }

/** What importing one attachment's record did: 'exists' when its _id is taken (the import compares the two). */
export type AttachmentImportOutcome = 'inserted' | 'exists' | 'missing-user'

/** A revision's place in note_revisions' key order: a history is one range of it (TransferStore.revisionsAfter). */
export type RevisionKey = Pick<StoredRevisionRecord, 'noteId' | 'editedOn' | '_id'>

export interface TransferStore {
  /** Inserts the users in one transaction: 'exists' (same _id), 'duplicate-email' or 'inserted', each. */
  importUsers(users: UserRecord[]): Promise<UserImportOutcome[]>
  /** Inserts the notes in one transaction: 'exists' or `{differs}` (same _id), 'missing-user' or 'inserted', each. */
  importNotes(notes: NoteRecord[]): Promise<NoteImportOutcome[]>
  /** Keyset page for export: up to `limit` users with _id > afterId (from the first when undefined), _id ascending. */
  usersAfter(afterId: string | undefined, limit: number): Promise<UserRecord[]>
  /** Keyset page for export: up to `limit` notes with _id > afterId, _id ascending; only userId's notes when given. */
  notesAfter(afterId: string | undefined, limit: number, userId?: string): Promise<NoteRecord[]>
  /** Inserts the trashed notes in one transaction, each kept as a deletion keeps it (its bytes counted): an outcome each. */
  importTrash(notes: TrashedNoteRecord[]): Promise<TrashImportOutcome[]>
  /** Inserts the revisions in one transaction, each kept as an edit keeps it; their notes come first: an outcome each. */
  importRevisions(revisions: StoredRevisionRecord[]): Promise<RevisionImportOutcome[]>
  /** Keyset page for export, as notesAfter, of the trash. */
  trashAfter(afterId: string | undefined, limit: number, userId?: string): Promise<TrashedNoteRecord[]>
  /**
   * Keyset page for export of every note's revisions (those of trashed notes too), in note_revisions' key order: up to
   * `limit` after `after` (from the first when undefined), only userId's when given.
   */
  revisionsAfter(after: RevisionKey | undefined, limit: number, userId?: string): Promise<StoredRevisionRecord[]>
  /**
   * Inserts the attachments' records, their bytes already stored, in one transaction: an outcome each. The links of
   * the notes, trashed notes and revisions already stored are made as a note's write makes them, so no order of
   * imports loses one; a record nothing links to starts its grace period now, as if its last link had just gone (the
   * sweep would otherwise take it for an upload never linked, a day old by its createdOn).
   */
  importAttachments(records: AttachmentRecord[]): Promise<AttachmentImportOutcome[]>
  /** Keyset page, as notesAfter, of the attachments' records. */
  attachmentsAfter(afterId: string | undefined, limit: number, userId?: string): Promise<AttachmentRecord[]>
  /** The attachment with this _id, whichever account's it is. */
  attachmentById(attachmentId: string): Promise<AttachmentRecord | undefined>
  /** How many accounts keep more than the store's quota allows (an import is not held to it); none when it has no quota. */
  accountsOverQuota(): Promise<number>
}

/** What an account's export reads, page by page (services/note-export.ts): the transfer store's keyset pages. */
export type ExportReads = Pick<TransferStore, 'notesAfter' | 'trashAfter' | 'revisionsAfter' | 'attachmentsAfter'>
