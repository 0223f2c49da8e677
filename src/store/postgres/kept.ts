// The trash and the revision history of the PostgreSQL driver (mirrors sqlite/kept.ts; docs/history.md). An edit
// keeps its revision in its own statement (notes.ts); the rest, rarer, runs as transactions of a few statements.
import type pg from 'pg'
import { holdsVersion, nextVersion } from '../../note-shape.js'
import { limits } from '../note-quota.js'
import type { NoteDeletion, NoteQuota, NoteRecord, NoteWrite, RevisionRecord, SweepCutoffs, Swept, TrashedNoteRecord } from '../types.js'
import { PostgresNotes } from './notes.js'
import { PostgresQuota } from './quota.js'
import { type Query, inTransaction, queryOn } from './query.js'
import { NOTE_COLUMNS, type NoteRow, decodeText, noteFromRow } from './rows.js'

/** Rows erased per statement by the sweep; SKIP LOCKED lets sweeps on several instances share the work. */
const SWEEP_BATCH = 500
/** Accounts whose old revisions one statement of the sweep erases. */
const SWEEP_USERS = 100

type RevisionRow = { id: string; title: string; content: string; tags: string[]; is_pinned: boolean; edited_on: string }

export class PostgresKept {
  constructor(
    private readonly query: Query,
    private readonly pool: pg.Pool,
  ) {}

  deleteNote(userId: string, noteId: string, { expected, trashedOn, quota }: NoteDeletion): Promise<NoteWrite> {
    return inTransaction(this.pool, async (client) => {
      const query = queryOn(client)
      const values = [userId, noteId]
      const { rows } = await query<NoteRow>('notes.lockToDelete', `SELECT ${NOTE_COLUMNS} FROM notes WHERE user_id = $1 AND id = $2 FOR UPDATE`, values)
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
      if (trashedOn !== undefined && quota && quota.bytes > 0) await query('kept.trim', 'SELECT trim_kept($1, $2)', [userId, quota.bytes])
      return { note: current }
    })
  }

  async listTrash(userId: string): Promise<TrashedNoteRecord[]> {
    const { rows } = await this.query<NoteRow & { deleted_on: string }>(
      'trash.list',
      `SELECT ${NOTE_COLUMNS}, deleted_on FROM trashed_notes WHERE user_id = $1 ORDER BY deleted_on DESC, id DESC`,
      [userId],
    )
    return rows.map((row) => ({ ...noteFromRow(row), deletedOn: row.deleted_on }))
  }

  restoreNote(userId: string, noteId: string, now: string, quota?: NoteQuota): Promise<NoteRecord | undefined> {
    return inTransaction(this.pool, async (client) => {
      const query = queryOn(client)
      // The quota's check below takes this connection's usage slot before the usage row, as every checked write does;
      // taken after the trash's usage row, another connection on the same slot could hold the one and wait for the other.
      if (limits(quota)) await query('trash.takeSlot', 'SELECT pg_advisory_xact_lock(hashtext($1), pg_backend_pid() % 16)', [userId])
      const { rows } = await query<NoteRow>('trash.take', `DELETE FROM trashed_notes WHERE user_id = $1 AND id = $2 RETURNING ${NOTE_COLUMNS}`, [userId, noteId])
      if (!rows[0]) return undefined
      const trashed = noteFromRow(rows[0])
      const note = { ...trashed, updatedOn: nextVersion(trashed.updatedOn, now) }
      // A quota's refusal throws, and the transaction takes the note back to the trash.
      const inserted = limits(quota) ? await new PostgresQuota(query).insertNote(note, quota) : await new PostgresNotes(query).insertNote(note)
      return inserted ? note : undefined
    })
  }

  async eraseTrash(userId: string, noteId?: string): Promise<number> {
    const { rows } = await this.query<{ n: string }>(
      'trash.erase',
      `WITH gone AS (DELETE FROM trashed_notes WHERE user_id = $1 AND ($2::text IS NULL OR id = $2) RETURNING id),
       history AS (DELETE FROM note_revisions WHERE user_id = $1 AND note_id IN (SELECT id FROM gone))
       SELECT count(*) AS n FROM gone`,
      [userId, noteId ?? null],
    )
    return Number(rows[0]?.n ?? 0)
  }

  async noteHistory(userId: string, noteId: string, limit: number): Promise<RevisionRecord[] | undefined> {
    const { rows } = await this.query<RevisionRow & { owned: boolean }>(
      'history.ofNote',
      `SELECT true AS owned, NULL AS id, NULL AS title, NULL AS content, NULL::text[] AS tags, NULL::boolean AS is_pinned, NULL AS edited_on
       WHERE EXISTS (SELECT 1 FROM notes WHERE user_id = $1 AND id = $2) OR EXISTS (SELECT 1 FROM trashed_notes WHERE user_id = $1 AND id = $2)
       UNION ALL
       (SELECT false, id, title, content, tags, is_pinned, edited_on FROM note_revisions
        WHERE user_id = $1 AND note_id = $2 ORDER BY edited_on DESC, id DESC LIMIT $3)`,
      [userId, noteId, limit],
    )
    if (!rows.some((row) => row.owned)) return undefined
    return rows
      .filter((row) => !row.owned)
      .map((row) => ({
        _id: row.id,
        title: decodeText(row.title),
        content: decodeText(row.content),
        tags: row.tags.map(decodeText),
        isPinned: row.is_pinned,
        editedOn: row.edited_on,
      }))
  }

  async sweep({ trashedBefore, replacedBefore, keepRevisions }: SweepCutoffs): Promise<Omit<Swept, 'changes'>> {
    const batches = async (name: string, text: string, cutoff: string) => {
      let total = 0
      for (;;) {
        const { rows } = await this.query<{ n: string }>(name, text, [cutoff])
        const n = Number(rows[0]?.n ?? 0)
        total += n
        if (n < SWEEP_BATCH) return total
      }
    }
    const notes = await batches(
      'sweep.trash',
      `WITH gone AS (DELETE FROM trashed_notes WHERE id IN (
         SELECT id FROM trashed_notes WHERE deleted_on < $1 LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED) RETURNING id, user_id),
       history AS (DELETE FROM note_revisions r USING gone WHERE r.note_id = gone.id AND r.user_id = gone.user_id)
       SELECT count(*) AS n FROM gone`,
      trashedBefore,
    )
    // Revisions are swept account by account, along note_revisions_by_user.
    let revisions = 0
    for (let after = ''; ; ) {
      const { rows: users } = await this.query<{ id: string }>('sweep.users', `SELECT id FROM users WHERE id > $1 ORDER BY id LIMIT ${SWEEP_USERS}`, [after])
      if (users.length === 0) break
      after = users[users.length - 1]?.id ?? after
      const { rows } = await this.query<{ n: string }>(
        'sweep.revisions',
        `WITH ranked AS (
           SELECT note_id, edited_on, id, replaced_on,
                  row_number() OVER (PARTITION BY note_id ORDER BY edited_on DESC, id DESC) AS newer
           FROM note_revisions WHERE user_id = ANY($1::text[])),
         gone AS (
           DELETE FROM note_revisions r USING ranked k
           WHERE r.note_id = k.note_id AND r.edited_on = k.edited_on AND r.id = k.id AND (k.replaced_on < $2 OR k.newer > $3)
           RETURNING 1)
         SELECT count(*) AS n FROM gone`,
        [users.map((u) => u.id), replacedBefore, keepRevisions],
      )
      revisions += Number(rows[0]?.n ?? 0)
    }
    return { notes, revisions }
  }
}
