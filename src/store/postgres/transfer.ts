// The transfer store of the PostgreSQL driver (mirrors sqlite/transfer.ts; store/transfer.ts): bulk import and
// paged export. ON CONFLICT DO NOTHING: a registration racing an import decides the outcome instead of failing the batch.
import type pg from 'pg'
import { bound } from '../note-quota.js'
import type { NoteQuota } from '../notes.js'
import type {
  AttachmentImportOutcome,
  NoteImportOutcome,
  RevisionImportOutcome,
  TrashImportOutcome,
  TransferStore,
  UserImportOutcome,
} from '../transfer.js'
import { noteDifferences, revisionDifferences, sameOrDiffers, trashedNoteDifferences } from '../note-differences.js'
import { type Query, inTransaction } from './query.js'
import { ATTACHMENT_COLUMNS, type AttachmentRow, attachmentFromRow, attachmentValues } from './attachments.js'
import { type Column, columnList, noteColumns, revisionColumns, trashedNoteColumns } from '../note-columns.js'
import type { UserRow } from '../row-shapes.js'
import {
  INSERT_USER,
  NOTE_COLUMNS,
  type NoteRow,
  noteFromRow,
  noteInsertParams,
  noteValues,
  placeholder,
  recordFromRow,
  recordValues,
  userFromRow,
  userValues,
} from './rows.js'

/** The placeholders of recordValues(columns), from $1. */
const placeholders = (columns: readonly Column<string>[]) => columns.map((_, i) => `$${i + 1}`).join(', ')
/** `field`'s placeholder among recordValues(columns). */
const at = (columns: readonly Column<string>[], field: string) => placeholder(columns, 1, field)
/** note_bytes of the escaped values, as a deletion or an edit keeps them (notes.ts, migration 14). */
const bytesOf = (columns: readonly Column<string>[]) =>
  `note_bytes(${at(columns, 'title')}, ${at(columns, 'content')}, ${at(columns, 'tags')}::text[])`

const NOTE_ID = at(noteColumns, '_id')
const OWNER = at(noteColumns, 'userId')
const TRASHED = columnList(trashedNoteColumns)
const REVISION = columnList(revisionColumns)
const TRASHED_INSERT = `INSERT INTO trashed_notes (${TRASHED}, bytes) SELECT ${placeholders(trashedNoteColumns)}, ${bytesOf(trashedNoteColumns)}
  WHERE EXISTS (SELECT 1 FROM users WHERE id = ${at(trashedNoteColumns, 'userId')}) AND NOT EXISTS (SELECT 1 FROM notes WHERE id = $1)
  ON CONFLICT (id) DO NOTHING RETURNING id`
const [REVISED_NOTE, REVISER] = [at(revisionColumns, 'noteId'), at(revisionColumns, 'userId')]
/** A revision of the note with this _id, or at this version: within the note's range of the table's key. */
const revisionOfNote = (noteId: string, id: string, editedOn: string) =>
  `note_id = ${noteId} AND (id = ${id} OR edited_on = ${editedOn})`
const REVISION_INSERT = `INSERT INTO note_revisions (${REVISION}, bytes) SELECT ${placeholders(revisionColumns)}, ${bytesOf(revisionColumns)}
  WHERE (EXISTS (SELECT 1 FROM notes WHERE id = ${REVISED_NOTE} AND user_id = ${REVISER})
         OR EXISTS (SELECT 1 FROM trashed_notes WHERE id = ${REVISED_NOTE} AND user_id = ${REVISER}))
    AND NOT EXISTS (SELECT 1 FROM note_revisions WHERE ${revisionOfNote(REVISED_NOTE, at(revisionColumns, '_id'), at(revisionColumns, 'editedOn'))})
  ON CONFLICT DO NOTHING RETURNING id`

/** An attachment's record, only when its account exists; an _id taken inserts nothing. */
const ATTACHMENT_INSERT = `INSERT INTO attachments (${ATTACHMENT_COLUMNS}) SELECT $1, $2, $3, $4, $5, $6, $7, $8
  WHERE EXISTS (SELECT 1 FROM users WHERE id = $2) ON CONFLICT DO NOTHING RETURNING id`
/** Does the row's text link to the attachment $3 ('/attachments/<id>'), as migration 18's triggers read it. */
const LINKS = '(strpos(title, $3::text) > 0 OR strpos(content, $3::text) > 0)'
/** The references an attachment imported after the notes gets from them ($1 its id, $2 its account's). */
const RELINK = `INSERT INTO attachment_refs (attachment_id, holder_kind, holder_id, note_id)
  SELECT $1::text, 'n', id, id FROM notes WHERE user_id = $2::text AND ${LINKS}
  UNION ALL SELECT $1::text, 't', id, id FROM trashed_notes WHERE user_id = $2::text AND ${LINKS}
  UNION ALL SELECT $1::text, 'r', id, note_id FROM note_revisions WHERE user_id = $2::text AND ${LINKS}
  ON CONFLICT DO NOTHING`
const GRACE_FROM_NOW = `UPDATE attachments SET referenced = true,
  unreferenced_since = to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
  WHERE id = $1 AND NOT referenced`

/** One batch in one transaction on one pooled connection: an outcome per item, in order. */
async function importEach<T, O>(
  pool: pg.Pool,
  items: T[],
  one: (client: pg.PoolClient, item: T) => Promise<O>,
): Promise<O[]> {
  if (items.length === 0) return []
  return inTransaction(pool, async (client) => {
    const outcomes: O[] = []
    for (const item of items) outcomes.push(await one(client, item))
    return outcomes
  })
}

/** Keyset pages of `table` by id, of one user's rows when asked; '' sorts before every id in the "C" collation: "from the start". */
function keysetPages<R>(query: Query, name: string, table: string, columns: readonly Column<keyof R & string>[]) {
  const list = columnList(columns)
  return async (afterId: string | undefined, limit: number, userId?: string): Promise<R[]> => {
    const { rows } =
      userId === undefined
        ? await query<NoteRow>(
            `transfer.${name}After`,
            `SELECT ${list} FROM ${table} WHERE id > $1 ORDER BY id LIMIT $2`,
            [afterId ?? '', limit],
          )
        : await query<NoteRow>(
            `transfer.${name}OfUserAfter`,
            `SELECT ${list} FROM ${table} WHERE user_id = $1 AND id > $2 ORDER BY id LIMIT $3`,
            [userId, afterId ?? '', limit],
          )
    return rows.map((row) => recordFromRow(columns, row))
  }
}

/** Keyset pages of note_revisions in its key's order, (note_id, edited_on, id): the primary key's b-tree. */
function revisionPages(query: Query): TransferStore['revisionsAfter'] {
  const page = `SELECT ${REVISION} FROM note_revisions WHERE`
  const order = (first: number) =>
    `(note_id, edited_on, id) > ($${first}, $${first + 1}, $${first + 2}) ORDER BY note_id, edited_on, id LIMIT $${first + 3}`
  return async (after, limit, userId) => {
    const cursor = [after?.noteId ?? '', after?.editedOn ?? '', after?._id ?? '', limit]
    const { rows } =
      userId === undefined
        ? await query<NoteRow>('transfer.revisionsAfter', `${page} ${order(1)}`, cursor)
        : await query<NoteRow>('transfer.revisionsOfUserAfter', `${page} user_id = $1 AND ${order(2)}`, [
            userId,
            ...cursor,
          ])
    return rows.map((row) => recordFromRow(revisionColumns, row))
  }
}

const exists = async (client: pg.PoolClient, sql: string, values: unknown[]) =>
  (await client.query(sql, values)).rowCount === 1

/** The transfer store over the request pool; `quota`: the store's, which accountsOverQuota counts against. */
export function postgresTransfer(query: Query, pool: pg.Pool, quota: NoteQuota): TransferStore {
  return {
    importUsers: (users) =>
      importEach(pool, users, async (client, u): Promise<UserImportOutcome> => {
        const inserted = await client.query(`${INSERT_USER} ON CONFLICT DO NOTHING RETURNING id`, userValues(u))
        if (inserted.rowCount === 1) return 'inserted'
        return (await exists(client, 'SELECT 1 FROM users WHERE id = $1', [u._id])) ? 'exists' : 'duplicate-email'
      }),

    importNotes: (notes) =>
      importEach(pool, notes, async (client, n): Promise<NoteImportOutcome> => {
        const inserted = await client.query(
          `INSERT INTO notes (${NOTE_COLUMNS}) SELECT ${noteInsertParams(1)} WHERE EXISTS (SELECT 1 FROM users WHERE id = ${OWNER})
             AND NOT EXISTS (SELECT 1 FROM trashed_notes WHERE id = ${NOTE_ID})
           ON CONFLICT (id) DO NOTHING RETURNING id`,
          noteValues(n),
        )
        if (inserted.rowCount === 1) return 'inserted'
        const { rows } = await client.query<NoteRow>(`SELECT ${NOTE_COLUMNS} FROM notes WHERE id = $1`, [n._id])
        if (rows[0]) return sameOrDiffers(noteDifferences(noteFromRow(rows[0]), n))
        return (await exists(client, 'SELECT 1 FROM trashed_notes WHERE id = $1', [n._id]))
          ? 'in-trash'
          : 'missing-user'
      }),

    importTrash: (notes) =>
      importEach(pool, notes, async (client, n): Promise<TrashImportOutcome> => {
        const inserted = await client.query(TRASHED_INSERT, recordValues(trashedNoteColumns, n))
        if (inserted.rowCount === 1) return 'inserted'
        const { rows } = await client.query<NoteRow>(`SELECT ${TRASHED} FROM trashed_notes WHERE id = $1`, [n._id])
        if (rows[0]) return sameOrDiffers(trashedNoteDifferences(recordFromRow(trashedNoteColumns, rows[0]), n))
        return (await exists(client, 'SELECT 1 FROM notes WHERE id = $1', [n._id])) ? 'live' : 'missing-user'
      }),

    importRevisions: (revisions) =>
      importEach(pool, revisions, async (client, r): Promise<RevisionImportOutcome> => {
        const inserted = await client.query(REVISION_INSERT, recordValues(revisionColumns, r))
        if (inserted.rowCount === 1) return 'inserted'
        const { rows } = await client.query<NoteRow>(
          `SELECT ${REVISION} FROM note_revisions WHERE ${revisionOfNote('$1', '$2', '$3')} ORDER BY id = $2 DESC LIMIT 1`,
          [r.noteId, r._id, r.editedOn],
        )
        if (rows[0]) return sameOrDiffers(revisionDifferences(recordFromRow(revisionColumns, rows[0]), r))
        return (await exists(client, 'SELECT 1 FROM users WHERE id = $1', [r.userId])) ? 'missing-note' : 'missing-user'
      }),

    importAttachments: (records) =>
      importEach(pool, records, async (client, a): Promise<AttachmentImportOutcome> => {
        const inserted = await client.query(ATTACHMENT_INSERT, attachmentValues(a))
        if (inserted.rowCount !== 1)
          return (await exists(client, 'SELECT 1 FROM attachments WHERE id = $1', [a._id])) ? 'exists' : 'missing-user'
        await client.query(RELINK, [a._id, a.userId, `/attachments/${a._id}`])
        await client.query(GRACE_FROM_NOW, [a._id])
        return 'inserted'
      }),

    async attachmentsAfter(afterId, limit, userId) {
      const { rows } =
        userId === undefined
          ? await query<AttachmentRow>(
              'transfer.attachmentsAfter',
              `SELECT ${ATTACHMENT_COLUMNS} FROM attachments WHERE id > $1 ORDER BY id LIMIT $2`,
              [afterId ?? '', limit],
            )
          : await query<AttachmentRow>(
              'transfer.attachmentsOfUserAfter',
              `SELECT ${ATTACHMENT_COLUMNS} FROM attachments WHERE user_id = $1 AND id > $2 ORDER BY id LIMIT $3`,
              [userId, afterId ?? '', limit],
            )
      return rows.map(attachmentFromRow)
    },

    async attachmentById(attachmentId) {
      const { rows } = await query<AttachmentRow>(
        'transfer.attachmentById',
        `SELECT ${ATTACHMENT_COLUMNS} FROM attachments WHERE id = $1`,
        [attachmentId],
      )
      return rows[0] && attachmentFromRow(rows[0])
    },

    async usersAfter(afterId, limit) {
      const { rows } = await query<UserRow>(
        'transfer.usersAfter',
        'SELECT * FROM users WHERE id > $1 ORDER BY id LIMIT $2',
        [afterId ?? '', limit],
      )
      return rows.map(userFromRow)
    },
    notesAfter: keysetPages(query, 'notes', 'notes', noteColumns),
    trashAfter: keysetPages(query, 'trash', 'trashed_notes', trashedNoteColumns),
    revisionsAfter: revisionPages(query),

    async accountsOverQuota() {
      const { rows } = await query<{ n: string }>(
        'usage.accountsOver',
        `SELECT count(*) AS n FROM (SELECT 1 FROM account_usage GROUP BY user_id
           HAVING sum(notes) > $1 OR sum(bytes) > $2) AS over`,
        [bound(quota.notes), bound(quota.bytes)],
      )
      return Number(rows[0]?.n ?? 0)
    },
  }
}
