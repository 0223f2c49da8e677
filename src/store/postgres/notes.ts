// Note queries of the PostgreSQL driver (mirrors sqlite/notes.ts). Every query is scoped by
// user_id and served by the notes_by_user_in_list_order index.
import { holdsVersion } from '../../note-shape.js'
import { NOTE_LIST_ORDER as LIST_ORDER } from '../list-order.js'
import type { NotePatch, NoteRecord, NoteWrite, NoteWriteTerms } from '../types.js'
import { NOTE_COLUMNS, type NoteRow, decodeJsonText, noteFromRow, noteInsertParams, noteValues, patchSet, patchValues } from './rows.js'
import { type Query, unlessAccountGone } from './query.js'

/** The user's notes' stored JSON joined into one array in list order; NULL when there are none. */
const LISTING = `'[' || string_agg(json, ',' ${LIST_ORDER}) || ']'`

/** The values every edit statement starts with: $1 to $7 of editStatement. */
export const EDIT_VALUES = 7

export const editValues = (userId: string, noteId: string, now: string, terms: NoteWriteTerms): unknown[] =>
  [userId, noteId, now, terms.expected ?? null, terms.revisionId, terms.keepRevisions, terms.quota?.bytes ?? 0]

/**
 * An edit in one statement (docs/history.md): `old` locks the note and reads it as last committed; `changed` applies
 * the patch, with the next version, only while `old` is as expected ($4, If-Match) and `allowed` holds; `kept` keeps
 * old's text as a revision when it changed. The patch's values follow the first `before` ($1 user, $2 note, $3 now,
 * $5 revision id, $6 revisions kept, $7 the byte quota). The answer: the changed note, or the current one.
 * When a delete commits while the edit waits for the note, `old` is empty; the new version then falls back to the
 * stored one, since PostgreSQL checks NOT NULL before it finds the row gone, and the edit changes nothing (404).
 */
export const editStatement = (before: number, verdictOf?: string) => {
  const [allowed, verdict] = verdictOf ? ["(SELECT v FROM verdict) = 'pass'", '(SELECT v FROM verdict)'] : ['true', 'NULL']
  return `
  WITH ${verdictOf ? `verdict AS (SELECT ${verdictOf} AS v),` : ''} old AS (SELECT ${NOTE_COLUMNS} FROM notes WHERE user_id = $1 AND id = $2 FOR UPDATE),
  changed AS (
    UPDATE notes SET ${patchSet(before + 1)}, updated_on = COALESCE(next_note_version((SELECT updated_on FROM old), $3), updated_on)
    WHERE user_id = $1 AND id = $2 AND ($4::text[] IS NULL OR (SELECT updated_on FROM old) = ANY($4::text[])) AND ${allowed}
    RETURNING ${NOTE_COLUMNS}
  ),
  kept AS (
    SELECT keep_revision($5, $1, $2, o.title, o.content, o.tags, o.is_pinned, o.updated_on, $3, $6, $7) AS n FROM old o, changed c
    WHERE o.title IS DISTINCT FROM c.title OR o.content IS DISTINCT FROM c.content OR o.tags IS DISTINCT FROM c.tags
  )
  SELECT true AS changed, ${verdict} AS v, ${NOTE_COLUMNS} FROM changed WHERE (SELECT count(*) FROM kept) >= 0
  UNION ALL
  SELECT false, ${verdict}, ${NOTE_COLUMNS} FROM old WHERE NOT EXISTS (SELECT 1 FROM changed)`
}

export type EditRow = NoteRow & { changed: boolean; v: string | null }

/** An edit statement's answer as Store.updateNote gives it; a note left unchanged by its quota verdict is that verdict. */
export function editOutcome(rows: EditRow[], expected?: readonly string[]): NoteWrite | string {
  const row = rows[0]
  if (!row) return undefined
  const note = noteFromRow(row)
  if (row.changed) return { note }
  if (row.v !== null && row.v !== 'pass' && holdsVersion(note, expected)) return row.v
  return { conflict: note }
}

export class PostgresNotes {
  constructor(private readonly query: Query) {}

  async insertNote(note: NoteRecord): Promise<boolean> {
    const insert = this.query('notes.insert', `INSERT INTO notes (${NOTE_COLUMNS}) VALUES (${noteInsertParams(1)})`, noteValues(note))
    return unlessAccountGone(insert.then(() => true))
  }

  async findNote(userId: string, noteId: string): Promise<NoteRecord | undefined> {
    const { rows } = await this.query<NoteRow>('notes.byId', `SELECT ${NOTE_COLUMNS} FROM notes WHERE user_id = $1 AND id = $2`, [userId, noteId])
    return rows[0] && noteFromRow(rows[0])
  }

  async updateNote(userId: string, noteId: string, patch: NotePatch, now: string, terms: NoteWriteTerms): Promise<NoteWrite> {
    const { rows } = await this.query<EditRow>('notes.edit', editStatement(EDIT_VALUES), [...editValues(userId, noteId, now, terms), ...patchValues(patch)])
    return editOutcome(rows) as NoteWrite
  }

  /** The listing joined by PostgreSQL from the stored JSON: no record is made (docs/performance.md). */
  async listNotesJson(userId: string): Promise<string> {
    const { rows } = await this.query<{ json: string | null }>('notes.listJson', `SELECT ${LISTING} AS json FROM notes WHERE user_id = $1`, [userId])
    const text = rows[0]?.json
    return text ? decodeJsonText(text) : '[]'
  }
}
