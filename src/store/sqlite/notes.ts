// The notes section of the SQLite driver (mirrors postgres/notes.ts; store/notes.ts): the note writes, held to the
// quota (quota.ts) and keeping trash and history (trash-history.ts), and the listing. Every query is scoped by
// user_id and served by the notes_by_user_in_list_order index.
import type { Database, Statement } from 'better-sqlite3'
import { NOTE_LIST_ORDER as LIST_ORDER } from '../list-order.js'
import type { NoteStore } from '../notes.js'
import { type NotePatch, type NoteRecord, holdsVersion, nextVersion, revises } from '../../note-shape.js'
import type { Writes } from './group-commit.js'
import { JsonPages, type JsonPageRow } from './json-pages.js'
import type { SqliteQuota } from './quota.js'
import {
  NOTE_COLUMNS,
  NOTE_INSERT,
  PATCH_SET,
  type NoteRow,
  noteFromRow,
  noteParams,
  patchParams,
  unlessAccountGone,
} from './rows.js'
import type { InsertNow, SqliteTrashHistory } from './trash-history.js'

/** Notes a listing reads in one synchronous step; a longer one yields between pages, not holding the event loop. */
export const LIST_PAGE_ROWS = 1000

/** Where a page starts: after this key, in list order. */
type PageKey = { pinned: number; createdOn: string; id: string }
/** A key before every note: is_pinned is 0 or 1. */
const FIRST_PAGE: PageKey = { pinned: 2, createdOn: '', id: '' }

type KeyRow = { is_pinned: number; created_on: string; id: string }

/**
 * Joins the stored JSON of a subquery's rows into a page, in list order: ORDER BY and LIMIT make SQLite
 * run the subquery as a co-routine (the store contract checks it). No rows: NULL, never joined (JsonPages.add).
 */
const pageOf = (subquery: string) =>
  `SELECT '[' || group_concat(json, ',') || ']' AS notes, json_group_array(id) AS ids, count(*) AS n FROM (${subquery})`

/** The notes table's statements. */
export class SqliteNotes {
  private readonly inserted: Statement
  private readonly byId: Statement<[string, string], NoteRow>
  private readonly updated: Statement<[Record<string, unknown>], NoteRow>
  private readonly removed: Statement<[string, string], NoteRow>
  private readonly listFirstPage: Statement<[string], JsonPageRow>
  private readonly listPage: Statement<[Record<string, unknown>], JsonPageRow>
  private readonly listPageEnd: Statement<[Record<string, unknown>], KeyRow>
  /** One read transaction: every statement of a page sees one snapshot. */
  private readonly snapshot: <T>(read: () => T) => T
  constructor(private readonly db: Database) {
    this.inserted = db.prepare(`INSERT INTO notes ${NOTE_INSERT}`)
    this.byId = db.prepare(`SELECT ${NOTE_COLUMNS} FROM notes WHERE user_id = ? AND id = ?`)
    this.updated = db.prepare(
      `UPDATE notes SET ${PATCH_SET}, updated_on = @updatedOn WHERE user_id = @userId AND id = @noteId RETURNING ${NOTE_COLUMNS}`,
    )
    this.removed = db.prepare(`DELETE FROM notes WHERE user_id = ? AND id = ? RETURNING ${NOTE_COLUMNS}`)
    const afterStart = '(is_pinned, created_on, id) < (@pinned, @createdOn, @id)'
    // Page sizes are written into the SQL, and the first page has no row-value bound: both make
    // SQLite's plan faster (docs/performance.md, "What shaped the design").
    this.listFirstPage = db.prepare(
      pageOf(`SELECT id, json FROM notes WHERE user_id = ? ${LIST_ORDER} LIMIT ${LIST_PAGE_ROWS}`),
    )
    this.listPage = db.prepare(
      pageOf(
        `SELECT id, json FROM notes WHERE user_id = @userId AND ${afterStart} ${LIST_ORDER} LIMIT ${LIST_PAGE_ROWS}`,
      ),
    )
    // The key of a page's last note, found on the list-order index alone.
    this.listPageEnd = db.prepare(
      `SELECT is_pinned, created_on, id FROM notes WHERE user_id = @userId AND ${afterStart}
       ${LIST_ORDER} LIMIT 1 OFFSET ${LIST_PAGE_ROWS - 1}`,
    )
    const inTransaction = db.transaction((read: () => unknown) => read())
    this.snapshot = <T>(read: () => T) => inTransaction(read) as T
  }

  /** A foreign key failure (the account gone) fails this statement alone, not the writer's transaction. */
  insert(note: NoteRecord): boolean {
    return unlessAccountGone(() => this.inserted.run(noteParams(note)).changes === 1)
  }

  byKey(userId: string, noteId: string): NoteRecord | undefined {
    const row = this.byId.get(userId, noteId)
    return row && noteFromRow(row)
  }

  update(userId: string, noteId: string, patch: NotePatch, updatedOn: string): NoteRecord | undefined {
    const row = this.updated.get({ userId, noteId, updatedOn, ...patchParams(patch) })
    return row && noteFromRow(row)
  }

  remove(userId: string, noteId: string): NoteRecord | undefined {
    const row = this.removed.get(userId, noteId)
    return row && noteFromRow(row)
  }

  async listing(userId: string): Promise<string> {
    const pages = new JsonPages()
    let after = FIRST_PAGE
    for (;;) {
      const page = this.snapshot(() => this.listPageFrom(userId, after))
      pages.add(page.rows)
      if (!page.next) return pages.json()
      after = page.next
      await new Promise((resolve) => setImmediate(resolve))
    }
  }

  private listPageFrom(userId: string, after: PageKey): { rows: JsonPageRow; next?: PageKey } {
    const rows = (
      after === FIRST_PAGE ? this.listFirstPage.get(userId) : this.listPage.get({ userId, ...after })
    ) as JsonPageRow
    if (rows.n < LIST_PAGE_ROWS) return { rows }
    const end = this.listPageEnd.get({ userId, ...after })
    return end ? { rows, next: { pinned: end.is_pinned, createdOn: end.created_on, id: end.id } } : { rows }
  }
}

/** The section's methods: `insertNow` is also what a restore inserts with (trash-history.ts). */
export function sqliteNotes(
  db: Database,
  { write, adding }: Writes,
  quota: SqliteQuota,
  trashHistory: SqliteTrashHistory,
): NoteStore & { insertNow: InsertNow } {
  const notes = new SqliteNotes(db)
  const usageRow = db
    .prepare<[string], [number, number]>('SELECT notes, bytes FROM account_usage WHERE user_id = ?')
    .raw()
  /** Inserts `note` in the writer's transaction: false when its account is gone; past the quota, throws. */
  const insertNow: InsertNow = (note) => quota.roomToAdd(note) && notes.insert(note)
  return {
    insertNow,
    insertNote: (note) => adding(() => insertNow(note)),
    findNote: async (userId, noteId) => notes.byKey(userId, noteId),
    updateNote: (userId, noteId, patch, now, terms) =>
      adding(() => {
        const current = notes.byKey(userId, noteId)
        if (!current) return undefined
        if (!holdsVersion(current, terms.expected)) return { conflict: current }
        quota.assertRoomToGrow(current, patch)
        const note = notes.update(userId, noteId, patch, nextVersion(current.updatedOn, now))
        if (!note) return undefined
        if (revises(current, note)) trashHistory.keepRevision(current, terms.revisionId, now)
        return { note }
      }),
    // Never refused for want of disk: a person must always be able to delete.
    deleteNote: (userId, noteId, { expected, trashedOn }) =>
      write(() => {
        const current = notes.byKey(userId, noteId)
        if (!current) return undefined
        if (!holdsVersion(current, expected)) return { conflict: current }
        if (trashedOn === undefined) trashHistory.eraseHistoryOf(userId, noteId)
        else trashHistory.moveToTrash(userId, noteId, trashedOn)
        notes.remove(userId, noteId)
        if (trashedOn !== undefined) trashHistory.trimToQuota(userId)
        return { note: current }
      }),
    listNotesJson: (userId) => notes.listing(userId),
    noteUsage: async (userId) => {
      const row = usageRow.get(userId)
      return row && { notes: row[0], bytes: row[1] }
    },
  }
}
