// The trash and history section of the SQLite driver (mirrors postgres/trash-history.ts; store/trash-history.ts;
// docs/history.md). Every statement runs in the group-commit writer's transaction with the write it belongs to; the
// note writes (notes.ts) keep revisions and move notes to the trash through SqliteTrashHistory.
import type { Database, Statement } from 'better-sqlite3'
import { type NoteRecord, type RevisionRecord, type TrashedNoteRecord, nextVersion } from '../../note-shape.js'
import type { StoreLimits } from '../limits.js'
import {
  SWEEP_BATCH,
  SWEEP_USERS,
  type SweepCutoffs,
  type TrashHistoryStore,
  sweepByAccounts,
  sweepInBatches,
} from '../trash-history.js'
import { type ChangesSweep, changesSweep } from './feed.js'
import type { Writes } from './group-commit.js'
import { NOTE_COLUMNS, type NoteRow, noteFromRow, noteParams } from './rows.js'

/** A row's kept size in SQL, over its title, content and tags columns: UTF-8 bytes, as account_usage counts them (migration 12). */
export const BYTES = `length(CAST(title AS BLOB)) + length(CAST(content AS BLOB))
  + (SELECT coalesce(sum(length(CAST(value AS BLOB))), 0) FROM json_each(tags))`

type RevisionRow = { id: string; title: string; content: string; tags: string; is_pinned: number; edited_on: string }

const revisionFromRow = (row: RevisionRow): RevisionRecord => ({
  _id: row.id,
  title: row.title,
  content: row.content,
  tags: JSON.parse(row.tags) as string[],
  isPinned: row.is_pinned === 1,
  editedOn: row.edited_on,
})

/** What a restore needs of the note writes (notes.ts): the note inserted in the writer's transaction, held to the quota. */
export type InsertNow = (note: NoteRecord) => boolean

/** The trash's and the history's statements, and what the note writes do with them, under the store's limits. */
export class SqliteTrashHistory {
  private readonly revise: Statement
  private readonly usage: Statement<[number, string], { over: number }>
  private readonly oldest: Statement<[{ userId: string }], { revision: number; id: string; edited_on: string | null }>
  private readonly eraseRevision: Statement<[string, string]>
  private readonly eraseTrashed: Statement<[string, string]>
  private readonly eraseHistory: Statement<[string, string]>
  private readonly trash: Statement
  private readonly untrash: Statement<[string, string], NoteRow>
  private readonly trashOf: Statement<[string], NoteRow & { deleted_on: string }>
  private readonly trashIds: Statement<[string], { id: string }>
  private readonly history: Statement<[{ noteId: string; userId: string; limit: number }], RevisionRow>
  private readonly owns: Statement<[{ userId: string; noteId: string }]>
  private readonly sweepTrash: Statement<[string], { id: string; user_id: string }>
  private readonly usersAfter: Statement<[string], string>
  private readonly sweepRevisions: Statement<[string, string, number]>

  private readonly sweepChanges: ChangesSweep

  constructor(
    db: Database,
    private readonly limits: StoreLimits,
  ) {
    this.sweepChanges = changesSweep(db)
    this.revise = db.prepare(
      `INSERT INTO note_revisions (id, note_id, user_id, title, content, tags, is_pinned, edited_on, replaced_on, bytes)
       SELECT @revisionId, id, user_id, title, content, tags, is_pinned, updated_on, @now, ${BYTES} FROM (SELECT @title AS title,
         @content AS content, @tags AS tags, @isPinned AS is_pinned, @updatedOn AS updated_on, @_id AS id, @userId AS user_id)`,
    )
    this.usage = db.prepare('SELECT bytes + kept - ? AS over FROM account_usage WHERE user_id = ?')
    this.oldest = db.prepare(
      `SELECT * FROM (
         SELECT * FROM (SELECT 1 AS revision, note_id AS id, edited_on, replaced_on AS at FROM note_revisions
                        WHERE user_id = @userId ORDER BY replaced_on LIMIT 1)
         UNION ALL
         SELECT * FROM (SELECT 0, id, NULL, deleted_on FROM trashed_notes WHERE user_id = @userId ORDER BY deleted_on, id LIMIT 1)
       ) ORDER BY at, id LIMIT 1`,
    )
    this.eraseRevision = db.prepare('DELETE FROM note_revisions WHERE note_id = ? AND edited_on = ?')
    this.eraseTrashed = db.prepare('DELETE FROM trashed_notes WHERE user_id = ? AND id = ?')
    this.eraseHistory = db.prepare('DELETE FROM note_revisions WHERE user_id = ? AND note_id = ?')
    this.trash = db.prepare(
      `INSERT INTO trashed_notes (${NOTE_COLUMNS}, deleted_on, bytes)
       SELECT ${NOTE_COLUMNS}, @deletedOn, ${BYTES} FROM notes WHERE user_id = @userId AND id = @noteId`,
    )
    this.untrash = db.prepare(`DELETE FROM trashed_notes WHERE user_id = ? AND id = ? RETURNING ${NOTE_COLUMNS}`)
    this.trashOf = db.prepare(
      `SELECT ${NOTE_COLUMNS}, deleted_on FROM trashed_notes WHERE user_id = ? ORDER BY deleted_on DESC, id DESC`,
    )
    this.trashIds = db.prepare('SELECT id FROM trashed_notes WHERE user_id = ?')
    this.history = db.prepare(
      `SELECT id, title, content, tags, is_pinned, edited_on FROM note_revisions
       WHERE note_id = @noteId AND user_id = @userId ORDER BY edited_on DESC, id DESC LIMIT @limit`,
    )
    this.owns = db.prepare(
      `SELECT 1 FROM notes WHERE user_id = @userId AND id = @noteId
       UNION ALL SELECT 1 FROM trashed_notes WHERE user_id = @userId AND id = @noteId`,
    )
    this.sweepTrash = db.prepare(`DELETE FROM trashed_notes WHERE id IN (
      SELECT id FROM trashed_notes WHERE deleted_on < ? LIMIT ${SWEEP_BATCH}) RETURNING id, user_id`)
    // Revisions are swept account by account, along note_revisions_by_user.
    this.usersAfter = db
      .prepare<[string], string>(`SELECT id FROM users WHERE id > ? ORDER BY id LIMIT ${SWEEP_USERS}`)
      .pluck()
    this.sweepRevisions = db.prepare(`DELETE FROM note_revisions WHERE (note_id, edited_on, id) IN (
      SELECT note_id, edited_on, id FROM (
        SELECT note_id, edited_on, id, replaced_on,
               row_number() OVER (PARTITION BY note_id ORDER BY edited_on DESC, id DESC) AS newer
        FROM note_revisions WHERE user_id = ?)
      WHERE replaced_on < ? OR newer > ?)`)
  }

  /** Keeps `before`, the note's state before an edit at `now`, as its newest revision; then the quota's bound (the sweep keeps the note's). */
  keepRevision(before: NoteRecord, revisionId: string, now: string): void {
    if (this.limits.keepRevisions <= 0) return
    this.revise.run({ ...noteParams(before), revisionId, now })
    this.trimToQuota(before.userId)
  }

  /** Over the byte quota, the oldest of the account's revisions and trashed notes go first. */
  trimToQuota(userId: string): void {
    const { bytes } = this.limits.quota
    if (bytes <= 0) return
    while ((this.usage.get(bytes, userId)?.over ?? 0) > 0) {
      const oldest = this.oldest.get({ userId })
      if (!oldest) return
      if (oldest.revision === 1) this.eraseRevision.run(oldest.id, oldest.edited_on ?? '')
      else this.erase(userId, oldest.id)
    }
  }

  /** Moves the note, as stored, to the trash: call before deleting it from notes. */
  moveToTrash(userId: string, noteId: string, deletedOn: string): void {
    this.trash.run({ userId, noteId, deletedOn })
  }

  /** Erases a trashed note for good, with its history: false, erasing nothing, when the trash holds no such note. */
  erase(userId: string, noteId: string): boolean {
    if (this.eraseTrashed.run(userId, noteId).changes === 0) return false
    this.eraseHistory.run(userId, noteId)
    return true
  }

  /** Erases a note's history alone: the note is being erased at once (TRASH_DAYS=0). */
  eraseHistoryOf(userId: string, noteId: string): void {
    this.eraseHistory.run(userId, noteId)
  }

  /** The section's methods over these statements; `insertNow`: the note writes' (notes.ts). */
  store({ write, adding }: Writes, insertNow: InsertNow): TrashHistoryStore {
    return {
      listTrash: async (userId) =>
        this.trashOf.all(userId).map((row): TrashedNoteRecord => ({ ...noteFromRow(row), deletedOn: row.deleted_on })),
      restoreNote: (userId, noteId, now) =>
        adding(() => {
          const row = this.untrash.get(userId, noteId)
          if (!row) return undefined
          const trashed = noteFromRow(row)
          const note = { ...trashed, updatedOn: nextVersion(trashed.updatedOn, now) }
          // The quota's refusal throws, and the writer rolls the untrash back with it.
          return insertNow(note) ? note : undefined
        }),
      eraseTrash: (userId, noteId) =>
        write(() => {
          const ids = noteId === undefined ? this.trashIds.all(userId).map((r) => r.id) : [noteId]
          return ids.filter((id) => this.erase(userId, id)).length
        }),
      noteHistory: async (userId, noteId) => {
        if (this.owns.get({ userId, noteId }) === undefined) return undefined
        return this.history.all({ noteId, userId, limit: this.limits.keepRevisions }).map(revisionFromRow)
      },
      sweep: async (cutoffs) => ({
        ...(await this.sweepTrashHistory(write, cutoffs)),
        changes: await this.sweepChanges(write, cutoffs.changedBefore),
      }),
    }
  }

  private async sweepTrashHistory(write: Writes['write'], { trashedBefore, replacedBefore }: SweepCutoffs) {
    const { keepRevisions } = this.limits
    const notes = await sweepInBatches(() =>
      write(() => {
        const gone = this.sweepTrash.all(trashedBefore)
        for (const { id, user_id } of gone) this.eraseHistory.run(user_id, id)
        return gone.length
      }),
    )
    // Revisions are swept account by account, along note_revisions_by_user.
    const revisions = await sweepByAccounts(
      async (after) => this.usersAfter.all(after),
      (users) =>
        write(() =>
          users.reduce(
            (sum, userId) => sum + this.sweepRevisions.run(userId, replacedBefore, keepRevisions).changes,
            0,
          ),
        ),
    )
    return { notes, revisions }
  }
}
