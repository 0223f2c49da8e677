// The note quota's checks in the SQLite driver (mirrors postgres/quota.ts): a write reads account_usage in its
// transaction, and SQLite's one writer lets no write fall in between. Buffer.byteLength counts as the triggers do
// (lone surrogates: 3 bytes), for less than a check in the INSERT.
import type { Database, Statement } from 'better-sqlite3'
import { NoteQuotaExceededError } from '../errors.js'
import { bound, isLimited, resizes } from '../note-quota.js'
import type { NoteQuota } from '../notes.js'
import type { NotePatch, NoteRecord } from '../../note-shape.js'

const bytesOf = (s: string) => Buffer.byteLength(s, 'utf8')
/** What the quota counts of a note: the UTF-8 bytes of its title, content and tags. */
const sizeOf = (note: Pick<NoteRecord, 'title' | 'content' | 'tags'>) =>
  bytesOf(note.title) + bytesOf(note.content) + note.tags.reduce((sum, tag) => sum + bytesOf(tag), 0)

/** Checks made in the writer's transaction, before the write they hold: each throws NoteQuotaExceededError past `quota`. */
export class SqliteQuota {
  private readonly usageRow: Statement<[string], [number, number]>

  constructor(
    db: Database,
    private readonly quota: NoteQuota,
  ) {
    this.usageRow = db
      .prepare<[string], [number, number]>('SELECT notes, bytes FROM account_usage WHERE user_id = ?')
      .raw()
  }

  /** Whether `note` may be added: false when its account is gone (it has no usage row). */
  roomToAdd(note: NoteRecord): boolean {
    const quota = this.quota
    if (!isLimited(quota)) return true
    const usage = this.usageRow.get(note.userId)
    if (!usage) return false
    if (usage[0] >= bound(quota.notes)) throw new NoteQuotaExceededError('notes')
    if (usage[1] + sizeOf(note) > bound(quota.bytes)) throw new NoteQuotaExceededError('bytes')
    return true
  }

  /** `current` patched may not take its account past the byte quota. */
  assertRoomToGrow(current: NoteRecord, patch: NotePatch): void {
    const quota = this.quota
    if (quota.bytes <= 0 || !resizes(patch)) return
    const patched = {
      title: patch.title ?? current.title,
      content: patch.content ?? current.content,
      tags: patch.tags ?? current.tags,
    }
    const grows = sizeOf(patched) - sizeOf(current)
    if (grows > 0 && (this.usageRow.get(current.userId)?.[1] ?? 0) + grows > bound(quota.bytes))
      throw new NoteQuotaExceededError('bytes')
  }
}
