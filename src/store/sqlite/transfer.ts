// The transfer store of the SQLite driver (mirrors postgres/transfer.ts; store/transfer.ts): bulk import and paged
// export. Each import batch is one IMMEDIATE transaction: one fsync, and its checks and inserts see a consistent database.
import type { Database } from 'better-sqlite3'
import type { AttachmentRecord } from '../../attachment-shape.js'
import type { UserRecord } from '../accounts.js'
import { type Column, columnList, noteColumns, revisionColumns, trashedNoteColumns } from '../note-columns.js'
import { noteDifferences, revisionDifferences, sameOrDiffers, trashedNoteDifferences } from '../note-differences.js'
import { bound } from '../note-quota.js'
import type { NoteQuota } from '../notes.js'
import type { NoteRecord, StoredRevisionRecord, TrashedNoteRecord } from '../../note-shape.js'
import type { UserRow } from '../row-shapes.js'
import type {
  AttachmentImportOutcome,
  NoteImportOutcome,
  RevisionImportOutcome,
  RevisionKey,
  TrashImportOutcome,
  TransferStore,
  UserImportOutcome,
} from '../transfer.js'
import {
  INSERT_USER,
  NOTE_COLUMNS,
  NOTE_INSERT,
  type NoteRow,
  noteFromRow,
  noteParams,
  recordFromRow,
  recordParams,
  userFromRow,
} from './rows.js'
import { ATTACHMENT_COLUMNS, type AttachmentRow, attachmentFromRow } from './attachments.js'
import { BYTES } from './trash-history.js'

/** The record's named parameters as a one-row table, so that BYTES reads them as the columns it sizes. */
const asRow = (columns: readonly Column<string>[]) =>
  `(SELECT ${columns.map((c) => `@${c.field} AS ${c.column}`).join(', ')})`

/** Keyset pages of `table` by id, of one user's rows when asked; '' sorts before every id, so it stands for "from the start". */
function keysetPages<R>(db: Database, table: string, columns: readonly Column<keyof R & string>[]) {
  const all = db.prepare<[string, number], NoteRow>(
    `SELECT ${columnList(columns)} FROM ${table} WHERE id > ? ORDER BY id LIMIT ?`,
  )
  const ofUser = db.prepare<[string, string, number], NoteRow>(
    `SELECT ${columnList(columns)} FROM ${table} WHERE user_id = ? AND id > ? ORDER BY id LIMIT ?`,
  )
  return async (afterId: string | undefined, limit: number, userId?: string): Promise<R[]> =>
    (userId === undefined ? all.all(afterId ?? '', limit) : ofUser.all(userId, afterId ?? '', limit)).map((row) =>
      recordFromRow(columns, row),
    )
}

/** Keyset pages of note_revisions in its key's order, (note_id, edited_on, id): the table's own b-tree. */
function revisionPages(db: Database): TransferStore['revisionsAfter'] {
  const page = `SELECT ${columnList(revisionColumns)} FROM note_revisions WHERE`
  const order = '(note_id, edited_on, id) > (@noteId, @editedOn, @_id) ORDER BY note_id, edited_on, id LIMIT @limit'
  type Cursor = RevisionKey & { limit: number; userId?: string }
  const all = db.prepare<[Cursor], NoteRow>(`${page} ${order}`)
  const ofUser = db.prepare<[Cursor], NoteRow>(`${page} user_id = @userId AND ${order}`)
  return async (after, limit, userId) => {
    const cursor = { noteId: after?.noteId ?? '', editedOn: after?.editedOn ?? '', _id: after?._id ?? '', limit }
    const rows = userId === undefined ? all.all(cursor) : ofUser.all({ ...cursor, userId })
    return rows.map((row) => recordFromRow(revisionColumns, row))
  }
}

/** Does the row's text link to the attachment `@link` ('/attachments/<id>'), as migration 18's triggers read it. */
const LINKS = '(instr(content, @link) > 0 OR instr(title, @link) > 0)'

/** The references an attachment imported after the notes gets from them, as migration 18's triggers make them. */
const RELINK = `INSERT OR IGNORE INTO attachment_refs (attachment_id, holder_kind, holder_id, note_id)
  SELECT @id, 'n', id, id FROM notes WHERE user_id = @userId AND ${LINKS}
  UNION ALL SELECT @id, 't', id, id FROM trashed_notes WHERE user_id = @userId AND ${LINKS}
  UNION ALL SELECT @id, 'r', id, note_id FROM note_revisions WHERE user_id = @userId AND ${LINKS}`

/** The attachments' keyset pages by id, of one user's when asked (as keysetPages). */
function attachmentPages(db: Database): TransferStore['attachmentsAfter'] {
  const all = db.prepare<[string, number], AttachmentRow>(
    `SELECT ${ATTACHMENT_COLUMNS} FROM attachments WHERE id > ? ORDER BY id LIMIT ?`,
  )
  const ofUser = db.prepare<[string, string, number], AttachmentRow>(
    `SELECT ${ATTACHMENT_COLUMNS} FROM attachments WHERE user_id = ? AND id > ? ORDER BY id LIMIT ?`,
  )
  return async (afterId, limit, userId) =>
    (userId === undefined ? all.all(afterId ?? '', limit) : ofUser.all(userId, afterId ?? '', limit)).map(
      attachmentFromRow,
    )
}

/** The transfer store over `db`; `quota`: the store's, which accountsOverQuota counts against. */
export function sqliteTransfer(db: Database, quota: NoteQuota): TransferStore {
  const userIdExists = db.prepare<[string], number>('SELECT 1 FROM users WHERE id = ?').pluck()
  const emailKeyExists = db.prepare<[string], number>('SELECT 1 FROM users WHERE email_key = ?').pluck()
  const insertUser = db.prepare(INSERT_USER)
  const noteById = db.prepare<[string], NoteRow>(`SELECT ${NOTE_COLUMNS} FROM notes WHERE id = ?`)
  const insertNote = db.prepare(`INSERT INTO notes ${NOTE_INSERT}`)
  const usersPage = db.prepare<[string, number], UserRow>('SELECT * FROM users WHERE id > ? ORDER BY id LIMIT ?')
  const trashedById = db.prepare<[string], NoteRow>(
    `SELECT ${columnList(trashedNoteColumns)} FROM trashed_notes WHERE id = ?`,
  )
  const insertTrashed = db.prepare(`INSERT INTO trashed_notes (${columnList(trashedNoteColumns)}, bytes)
    SELECT ${columnList(trashedNoteColumns)}, ${BYTES} FROM ${asRow(trashedNoteColumns)}`)
  // Within the note's range of the table's key: the revision with this _id first, else the one at this version.
  const revisionAt = db.prepare<[{ noteId: string; _id: string; editedOn: string }], NoteRow>(
    `SELECT ${columnList(revisionColumns)} FROM note_revisions WHERE note_id = @noteId AND (id = @_id OR edited_on = @editedOn)
     ORDER BY id = @_id DESC LIMIT 1`,
  )
  const insertRevision = db.prepare(`INSERT INTO note_revisions (${columnList(revisionColumns)}, bytes)
    SELECT ${columnList(revisionColumns)}, ${BYTES} FROM ${asRow(revisionColumns)}`)
  const noteOfUser = db
    .prepare<[{ noteId: string; userId: string }], number>(
      `SELECT 1 FROM notes WHERE id = @noteId AND user_id = @userId
       UNION ALL SELECT 1 FROM trashed_notes WHERE id = @noteId AND user_id = @userId`,
    )
    .pluck()
  const attachmentById = db.prepare<[string], AttachmentRow>(
    `SELECT ${ATTACHMENT_COLUMNS} FROM attachments WHERE id = ?`,
  )
  const insertAttachment = db.prepare(`INSERT INTO attachments (${ATTACHMENT_COLUMNS})
    VALUES (@_id, @userId, @name, @type, @size, @sha256, @blobKey, @createdOn)`)
  const relink = db.prepare<[{ id: string; userId: string; link: string }]>(RELINK)
  const graceFromNow = db.prepare<[string]>(
    `UPDATE attachments SET referenced = 1, unreferenced_since = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
     WHERE id = ? AND referenced = 0`,
  )
  const over = db
    .prepare<[number, number], number>('SELECT count(*) FROM account_usage WHERE notes > ? OR bytes > ?')
    .pluck()

  const importUsers = db.transaction((users: UserRecord[]) =>
    users.map((user): UserImportOutcome => {
      if (userIdExists.get(user._id)) return 'exists'
      if (emailKeyExists.get(user.emailKey)) return 'duplicate-email'
      insertUser.run(user)
      return 'inserted'
    }),
  )
  const importNotes = db.transaction((notes: NoteRecord[]) =>
    notes.map((note): NoteImportOutcome => {
      const stored = noteById.get(note._id)
      if (stored) return sameOrDiffers(noteDifferences(noteFromRow(stored), note))
      if (trashedById.get(note._id)) return 'in-trash'
      if (!userIdExists.get(note.userId)) return 'missing-user'
      insertNote.run(noteParams(note))
      return 'inserted'
    }),
  )
  const importTrash = db.transaction((notes: TrashedNoteRecord[]) =>
    notes.map((note): TrashImportOutcome => {
      const stored = trashedById.get(note._id)
      if (stored) return sameOrDiffers(trashedNoteDifferences(recordFromRow(trashedNoteColumns, stored), note))
      if (noteById.get(note._id)) return 'live'
      if (!userIdExists.get(note.userId)) return 'missing-user'
      insertTrashed.run(recordParams(trashedNoteColumns, note))
      return 'inserted'
    }),
  )
  const importRevisions = db.transaction((revisions: StoredRevisionRecord[]) =>
    revisions.map((revision): RevisionImportOutcome => {
      const stored = revisionAt.get({ noteId: revision.noteId, _id: revision._id, editedOn: revision.editedOn })
      if (stored) return sameOrDiffers(revisionDifferences(recordFromRow(revisionColumns, stored), revision))
      if (!userIdExists.get(revision.userId)) return 'missing-user'
      if (!noteOfUser.get({ noteId: revision.noteId, userId: revision.userId })) return 'missing-note'
      insertRevision.run(recordParams(revisionColumns, revision))
      return 'inserted'
    }),
  )
  const importAttachments = db.transaction((records: AttachmentRecord[]) =>
    records.map((record): AttachmentImportOutcome => {
      if (attachmentById.get(record._id)) return 'exists'
      if (!userIdExists.get(record.userId)) return 'missing-user'
      insertAttachment.run(record)
      relink.run({ id: record._id, userId: record.userId, link: `/attachments/${record._id}` })
      graceFromNow.run(record._id)
      return 'inserted'
    }),
  )
  return {
    importUsers: async (users) => (users.length ? importUsers.immediate(users) : []),
    importNotes: async (notes) => (notes.length ? importNotes.immediate(notes) : []),
    importTrash: async (notes) => (notes.length ? importTrash.immediate(notes) : []),
    importRevisions: async (revisions) => (revisions.length ? importRevisions.immediate(revisions) : []),
    usersAfter: async (afterId, limit) => usersPage.all(afterId ?? '', limit).map(userFromRow),
    notesAfter: keysetPages(db, 'notes', noteColumns),
    trashAfter: keysetPages(db, 'trashed_notes', trashedNoteColumns),
    revisionsAfter: revisionPages(db),
    importAttachments: async (records) => (records.length ? importAttachments.immediate(records) : []),
    attachmentsAfter: attachmentPages(db),
    attachmentById: async (attachmentId) => {
      const row = attachmentById.get(attachmentId)
      return row && attachmentFromRow(row)
    },
    accountsOverQuota: async () => over.get(bound(quota.notes), bound(quota.bytes)) ?? 0,
  }
}
