// The notes section of the PostgreSQL driver (mirrors sqlite/notes.ts; store/notes.ts): the note writes, each one
// statement held to the store's quota when it has one (quota.ts), but the delete, and the listing. Every query is scoped
// by user_id and served by the notes_by_user_in_list_order index.
import type pg from 'pg'
import { type NotePatch, type NoteRecord, holdsVersion } from '../../note-shape.js'
import { NOTE_LIST_ORDER as LIST_ORDER } from '../list-order.js'
import { isLimited, resizes } from '../note-quota.js'
import type { StoreLimits } from '../limits.js'
import type { NoteQuota, NoteStore, NoteWrite, NoteWriteTerms } from '../notes.js'
import { type Query, inTransaction, queryOn, unlessAccountGone } from './query.js'
import { type Verdict, quotaCheck, refuseOver, withinQuota } from './quota.js'
import {
  NOTE_COLUMNS,
  type NoteRow,
  Placeholders,
  decodeJsonText,
  noteFromRow,
  noteInsertParams,
  noteValues,
  patchSet,
} from './rows.js'
import { noteColumns } from '../note-columns.js'

/** The user's notes' stored JSON joined into one array in list order; NULL when there are none. */
const LISTING = `'[' || string_agg(json, ',' ${LIST_ORDER}) || ']'`

/**
 * An edit in one statement (docs/history.md): `old` locks the note and reads it as last committed; `changed` applies
 * the patch, with the next version, only while `old` is as expected (If-Match) and the quota's check (`checked`)
 * answers 'pass'; `kept` keeps old's text as a revision when it changed. The answer: the changed note, or the current
 * one. When a delete commits while the edit waits for the note, `old` is empty; the new version then falls back to the
 * stored one, since PostgreSQL checks NOT NULL before it finds the row gone, and the edit changes nothing (404).
 */
function editStatement(edit: Edit, limits: StoreLimits, checked?: { exclusive: boolean }) {
  const { userId, noteId, patch, now, terms } = edit
  const params = new Placeholders()
  const [user, note, at, expected] = [
    params.$(userId),
    params.$(noteId),
    params.$(now),
    params.$(terms.expected ?? null),
  ]
  const [revisionId, keep, trimTo] = [
    params.$(terms.revisionId),
    params.$(limits.keepRevisions),
    params.$(limits.quota.bytes),
  ]
  const patched = patchSet(params, patch)
  const check =
    checked &&
    quotaCheck(
      params,
      user,
      note,
      { title: patched.at.title!, content: patched.at.content!, tags: patched.at.tags! },
      limits.quota,
      checked.exclusive,
    )
  const [allowed, verdict] = check ? ["(SELECT v FROM verdict) = 'pass'", '(SELECT v FROM verdict)'] : ['true', 'NULL']
  const text = `
  WITH ${check ? `verdict AS (SELECT ${check} AS v),` : ''} old AS (SELECT ${NOTE_COLUMNS} FROM notes WHERE user_id = ${user} AND id = ${note} FOR UPDATE),
  changed AS (
    UPDATE notes SET ${patched.set}, updated_on = COALESCE(next_note_version((SELECT updated_on FROM old), ${at}), updated_on)
    WHERE user_id = ${user} AND id = ${note} AND (${expected}::text[] IS NULL OR (SELECT updated_on FROM old) = ANY(${expected}::text[])) AND ${allowed}
    RETURNING ${NOTE_COLUMNS}
  ),
  kept AS (
    SELECT keep_revision(${revisionId}, ${user}, ${note}, o.title, o.content, o.tags, o.is_pinned, o.updated_on, ${at}, ${keep}, ${trimTo}) AS n FROM old o, changed c
    WHERE o.title IS DISTINCT FROM c.title OR o.content IS DISTINCT FROM c.content OR o.tags IS DISTINCT FROM c.tags
  )
  SELECT true AS changed, ${verdict} AS v, ${NOTE_COLUMNS} FROM changed WHERE (SELECT count(*) FROM kept) >= 0
  UNION ALL
  SELECT false, ${verdict}, ${NOTE_COLUMNS} FROM old WHERE NOT EXISTS (SELECT 1 FROM changed)`
  return { text, values: params.values }
}

/** Store.updateNote's arguments. */
type Edit = { userId: string; noteId: string; patch: NotePatch; now: string; terms: NoteWriteTerms }

type EditRow = NoteRow & { changed: boolean; v: string | null }

/** An edit statement's answer as Store.updateNote gives it; a note left unchanged by its quota verdict is that verdict. */
function editOutcome(rows: EditRow[], expected?: readonly string[]): NoteWrite | string {
  const row = rows[0]
  if (!row) return undefined
  const note = noteFromRow(row)
  if (row.changed) return { note }
  if (row.v !== null && row.v !== 'pass' && holdsVersion(note, expected)) return row.v
  return { conflict: note }
}

/** Inserts the note over `query` (a transaction's too: a restore), held to `quota` when it limits: false when its account is gone. */
export function insertNoteOver(query: Query, note: NoteRecord, quota: NoteQuota): Promise<boolean> {
  if (!isLimited(quota)) {
    const insert = query(
      'notes.insert',
      `INSERT INTO notes (${NOTE_COLUMNS}) VALUES (${noteInsertParams(1)})`,
      noteValues(note),
    )
    return unlessAccountGone(insert.then(() => true))
  }
  return unlessAccountGone(
    withinQuota(async (exclusive) => {
      const params = new Placeholders()
      const values = noteValues(note).map((value) => params.$(value))
      const at = (field: string) => values[noteColumns.findIndex((c) => c.field === field)]!
      const check = quotaCheck(
        params,
        at('userId'),
        'NULL',
        { title: at('title'), content: at('content'), tags: at('tags') },
        quota,
        exclusive,
      )
      const { rows } = await query<{ v: Verdict }>(
        exclusive ? 'notes.insertWithinQuotaExclusive' : 'notes.insertWithinQuota',
        `WITH verdict AS (SELECT ${check} AS v),
         added AS (INSERT INTO notes (${NOTE_COLUMNS}) SELECT ${values.join(', ')} FROM verdict WHERE v = 'pass')
         SELECT v FROM verdict`,
        params.values,
      )
      refuseOver(rows[0]?.v)
      return rows[0]?.v === 'pass' ? true : 'retry'
    }),
  )
}

export function postgresNotes(query: Query, pool: pg.Pool, limits: StoreLimits): NoteStore {
  const { quota } = limits
  return {
    insertNote: (note) => insertNoteOver(query, note, quota),

    async findNote(userId, noteId) {
      const { rows } = await query<NoteRow>(
        'notes.byId',
        `SELECT ${NOTE_COLUMNS} FROM notes WHERE user_id = $1 AND id = $2`,
        [userId, noteId],
      )
      return rows[0] && noteFromRow(rows[0])
    },

    // Held to the byte quota only when the patch can change the note's size.
    async updateNote(userId, noteId, patch, now, terms) {
      if (quota.bytes <= 0 || !resizes(patch)) {
        const edit = editStatement({ userId, noteId, patch, now, terms }, limits)
        return editOutcome((await query<EditRow>('notes.edit', edit.text, edit.values)).rows) as NoteWrite
      }
      return withinQuota(async (exclusive) => {
        const edit = editStatement({ userId, noteId, patch, now, terms }, limits, { exclusive })
        const { rows } = await query<EditRow>(
          exclusive ? 'notes.editWithinQuotaExclusive' : 'notes.editWithinQuota',
          edit.text,
          edit.values,
        )
        const outcome = editOutcome(rows, terms.expected)
        if (outcome === 'bytes') refuseOver(outcome)
        if (outcome === 'retry') return 'retry'
        return typeof outcome === 'string' ? undefined : outcome // 'missing'
      })
    },

    // Moves the note to the trash, or erases it with its history, in a transaction of a few statements.
    deleteNote(userId, noteId, { expected, trashedOn }) {
      return inTransaction(pool, async (client) => {
        const query = queryOn(client)
        const values = [userId, noteId]
        const { rows } = await query<NoteRow>(
          'notes.lockToDelete',
          `SELECT ${NOTE_COLUMNS} FROM notes WHERE user_id = $1 AND id = $2 FOR UPDATE`,
          values,
        )
        if (!rows[0]) return undefined
        const current = noteFromRow(rows[0])
        if (!holdsVersion(current, expected)) return { conflict: current }
        if (trashedOn === undefined) {
          await query('history.eraseOfNote', 'DELETE FROM note_revisions WHERE user_id = $1 AND note_id = $2', values)
        } else {
          await query(
            'trash.move',
            `INSERT INTO trashed_notes (${NOTE_COLUMNS}, deleted_on, bytes)
             SELECT ${NOTE_COLUMNS}, $3, note_bytes(title, content, tags) FROM notes WHERE user_id = $1 AND id = $2`,
            [...values, trashedOn],
          )
        }
        await query('notes.delete', 'DELETE FROM notes WHERE user_id = $1 AND id = $2', values)
        if (trashedOn !== undefined && quota.bytes > 0)
          await query('trash.trimToQuota', 'SELECT trim_kept($1, $2)', [userId, quota.bytes])
        return { note: current }
      })
    },

    // Joined by PostgreSQL from the stored JSON: no record is made (docs/performance.md).
    async listNotesJson(userId) {
      const { rows } = await query<{ json: string | null }>(
        'notes.listJson',
        `SELECT ${LISTING} AS json FROM notes WHERE user_id = $1`,
        [userId],
      )
      const text = rows[0]?.json
      return text ? decodeJsonText(text) : '[]'
    },

    async noteUsage(userId) {
      const { rows } = await query<{ notes: string; bytes: string }>(
        'usage.ofAccount',
        'SELECT coalesce(sum(notes), 0) AS notes, coalesce(sum(bytes), 0) AS bytes FROM account_usage WHERE user_id = $1',
        [userId],
      )
      const row = rows[0]
      if (!row) return undefined
      // No usage rows: an account without notes, or no account.
      if (
        row.notes === '0' &&
        row.bytes === '0' &&
        (await query('users.exists', 'SELECT 1 FROM users WHERE id = $1', [userId])).rowCount !== 1
      )
        return undefined
      return { notes: Number(row.notes), bytes: Number(row.bytes) }
    },
  }
}
