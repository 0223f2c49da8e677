// The trash and history section of the PostgreSQL driver (mirrors sqlite/trash-history.ts; store/trash-history.ts;
// docs/history.md). An edit keeps its revision in its own statement, and a delete moves its note to the trash
// (notes.ts); the rest, rarer, runs as transactions of a few statements. The sweep's SKIP LOCKED lets sweeps on
// several instances share the work.
import type pg from 'pg'
import { type NoteRecord, type RevisionRecord, type TrashedNoteRecord, nextVersion } from '../../note-shape.js'
import type { StoreLimits } from '../limits.js'
import { isLimited } from '../note-quota.js'
import {
  SWEEP_BATCH,
  SWEEP_USERS,
  type SweepCutoffs,
  type TrashHistoryStore,
  sweepByAccounts,
  sweepInBatches,
} from '../trash-history.js'
import { sweepChanges } from './feed.js'
import { insertNoteOver } from './notes.js'
import { type Query, inTransaction, queryOn } from './query.js'
import { NOTE_COLUMNS, type NoteRow, decodeText, noteFromRow } from './rows.js'

type RevisionRow = { id: string; title: string; content: string; tags: string[]; is_pinned: boolean; edited_on: string }

/** Trash and history over the request pool's `query`, under the store's limits; `pool` for a restore's transaction. */
class PostgresTrashHistory {
  constructor(
    private readonly query: Query,
    private readonly pool: pg.Pool,
    private readonly limits: StoreLimits,
  ) {}

  async listTrash(userId: string): Promise<TrashedNoteRecord[]> {
    const { rows } = await this.query<NoteRow & { deleted_on: string }>(
      'trash.list',
      `SELECT ${NOTE_COLUMNS}, deleted_on FROM trashed_notes WHERE user_id = $1 ORDER BY deleted_on DESC, id DESC`,
      [userId],
    )
    return rows.map((row) => ({ ...noteFromRow(row), deletedOn: row.deleted_on }))
  }

  restoreNote(userId: string, noteId: string, now: string): Promise<NoteRecord | undefined> {
    const { quota } = this.limits
    return inTransaction(this.pool, async (client) => {
      const query = queryOn(client)
      // The quota's check below takes this connection's usage slot before the usage row, as every checked write does;
      // taken after the trash's usage row, another connection on the same slot could hold the one and wait for the other.
      if (isLimited(quota))
        await query('trash.takeSlot', 'SELECT pg_advisory_xact_lock(hashtext($1), pg_backend_pid() % 16)', [userId])
      const { rows } = await query<NoteRow>(
        'trash.take',
        `DELETE FROM trashed_notes WHERE user_id = $1 AND id = $2 RETURNING ${NOTE_COLUMNS}`,
        [userId, noteId],
      )
      if (!rows[0]) return undefined
      const trashed = noteFromRow(rows[0])
      const note = { ...trashed, updatedOn: nextVersion(trashed.updatedOn, now) }
      // A quota's refusal throws, and the transaction takes the note back to the trash.
      return (await insertNoteOver(query, note, quota)) ? note : undefined
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

  async noteHistory(userId: string, noteId: string): Promise<RevisionRecord[] | undefined> {
    const { rows } = await this.query<RevisionRow & { owned: boolean }>(
      'history.ofNote',
      `SELECT true AS owned, NULL AS id, NULL AS title, NULL AS content, NULL::text[] AS tags, NULL::boolean AS is_pinned, NULL AS edited_on
       WHERE EXISTS (SELECT 1 FROM notes WHERE user_id = $1 AND id = $2) OR EXISTS (SELECT 1 FROM trashed_notes WHERE user_id = $1 AND id = $2)
       UNION ALL
       (SELECT false, id, title, content, tags, is_pinned, edited_on FROM note_revisions
        WHERE user_id = $1 AND note_id = $2 ORDER BY edited_on DESC, id DESC LIMIT $3)`,
      [userId, noteId, this.limits.keepRevisions],
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

  async sweep({ trashedBefore, replacedBefore, changedBefore }: SweepCutoffs) {
    const { keepRevisions } = this.limits
    const count = ({ rows }: pg.QueryResult<{ n: string }>) => Number(rows[0]?.n ?? 0)
    const notes = await sweepInBatches(async () =>
      count(
        await this.query<{ n: string }>(
          'sweep.trash',
          `WITH gone AS (DELETE FROM trashed_notes WHERE id IN (
             SELECT id FROM trashed_notes WHERE deleted_on < $1 LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED) RETURNING id, user_id),
           history AS (DELETE FROM note_revisions r USING gone WHERE r.note_id = gone.id AND r.user_id = gone.user_id)
           SELECT count(*) AS n FROM gone`,
          [trashedBefore],
        ),
      ),
    )
    // Revisions are swept account by account, along note_revisions_by_user.
    const revisions = await sweepByAccounts(
      async (after) =>
        (
          await this.query<{ id: string }>(
            'sweep.users',
            `SELECT id FROM users WHERE id > $1 ORDER BY id LIMIT ${SWEEP_USERS}`,
            [after],
          )
        ).rows.map((u) => u.id),
      async (users) =>
        count(
          await this.query<{ n: string }>(
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
            [users, replacedBefore, keepRevisions],
          ),
        ),
    )
    return { notes, revisions, changes: await sweepChanges(this.query, changedBefore) }
  }
}

export function postgresTrashHistory(query: Query, pool: pg.Pool, limits: StoreLimits): TrashHistoryStore {
  const section = new PostgresTrashHistory(query, pool, limits)
  return {
    listTrash: (userId) => section.listTrash(userId),
    restoreNote: (userId, noteId, now) => section.restoreNote(userId, noteId, now),
    eraseTrash: (userId, noteId) => section.eraseTrash(userId, noteId),
    noteHistory: (userId, noteId) => section.noteHistory(userId, noteId),
    sweep: (cutoffs) => section.sweep(cutoffs),
  }
}
