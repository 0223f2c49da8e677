// The attachments section of the SQLite driver (mirrors postgres/attachments.ts; store/attachments.ts). One writer
// at a time makes the quota's sum and the insert one step; the links from notes are the triggers' (migration 18).
import type { Database } from 'better-sqlite3'
import type { AttachmentRecord } from '../../attachment-shape.js'
import type { AttachmentStore } from '../attachments.js'
import { AttachmentQuotaExceededError } from '../errors.js'
import type { StoreLimits } from '../limits.js'
import { SWEEP_BATCH } from '../trash-history.js'
import type { Writes } from './group-commit.js'
import { unlessAccountGone } from './rows.js'

export const ATTACHMENT_COLUMNS = 'id, user_id, name, type, size, sha256, blob_key, created_on'

export type AttachmentRow = {
  id: string
  user_id: string
  name: string
  type: string
  size: number
  sha256: string
  blob_key: string
  created_on: string
}

export const attachmentFromRow = (row: AttachmentRow): AttachmentRecord => ({
  _id: row.id,
  name: row.name,
  type: row.type,
  size: row.size,
  sha256: row.sha256,
  createdOn: row.created_on,
  userId: row.user_id,
  blobKey: row.blob_key,
})

export function sqliteAttachments(db: Database, { write, adding }: Writes, limits: StoreLimits): AttachmentStore {
  const inserted = db.prepare(`INSERT INTO attachments (${ATTACHMENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
  const bytesOf = db
    .prepare<[string], number>('SELECT coalesce(sum(size), 0) FROM attachments WHERE user_id = ?')
    .pluck()
  const byId = db.prepare<[string, string], AttachmentRow>(
    `SELECT ${ATTACHMENT_COLUMNS} FROM attachments WHERE user_id = ? AND id = ?`,
  )
  const listed = db.prepare<[string], AttachmentRow & { notes: string }>(
    `SELECT ${ATTACHMENT_COLUMNS}, (SELECT json_group_array(note_id) FROM (SELECT DISTINCT note_id FROM attachment_refs r
       WHERE r.attachment_id = a.id ORDER BY note_id)) AS notes
     FROM attachments a WHERE user_id = ? ORDER BY created_on DESC, id DESC`,
  )
  const removed = db.prepare<[string, string], AttachmentRow>(
    `DELETE FROM attachments WHERE user_id = ? AND id = ? RETURNING ${ATTACHMENT_COLUMNS}`,
  )
  const swept = db.prepare<[string, string], ErasedAttachmentRow>(
    `DELETE FROM attachments WHERE id IN (SELECT id FROM attachments
       WHERE (referenced = 0 AND created_on < ?) OR (referenced = 1 AND unreferenced_since < ?) LIMIT ${SWEEP_BATCH})
     RETURNING id, user_id, blob_key, size`,
  )
  const known = db
    .prepare<[string], string>('SELECT blob_key FROM attachments WHERE blob_key IN (SELECT value FROM json_each(?))')
    .pluck()
  const moved = db.prepare<[string, string, string]>(
    'UPDATE attachments SET blob_key = ? WHERE id = ? AND blob_key = ?',
  )
  const limit = limits.attachmentBytes
  return {
    insertAttachment: (record) =>
      adding(() => {
        if (limit > 0 && bytesOf.get(record.userId)! + record.size > limit)
          throw new AttachmentQuotaExceededError(limit)
        return unlessAccountGone(
          () =>
            inserted.run(
              record._id,
              record.userId,
              record.name,
              record.type,
              record.size,
              record.sha256,
              record.blobKey,
              record.createdOn,
            ).changes === 1,
        )
      }),
    findAttachment: async (userId, attachmentId) => {
      const row = byId.get(userId, attachmentId)
      return row && attachmentFromRow(row)
    },
    listAttachments: async (userId) =>
      listed.all(userId).map((row) => ({ ...attachmentFromRow(row), notes: JSON.parse(row.notes) as string[] })),
    attachmentBytes: async (userId) => bytesOf.get(userId)!,
    deleteAttachment: (userId, attachmentId) =>
      write(() => {
        const row = removed.get(userId, attachmentId)
        return row && attachmentFromRow(row)
      }),
    sweepAttachments: ({ uploadedBefore, unreferencedBefore }) =>
      write(() =>
        swept.all(uploadedBefore, unreferencedBefore).map((row) => ({
          _id: row.id,
          userId: row.user_id,
          blobKey: row.blob_key,
          size: row.size,
        })),
      ),
    knownBlobKeys: async (keys) => new Set(known.all(JSON.stringify(keys))),
    moveAttachmentBlob: (attachmentId, fromKey, toKey) =>
      write(() => moved.run(toKey, attachmentId, fromKey).changes === 1),
  }
}

type ErasedAttachmentRow = { id: string; user_id: string; blob_key: string; size: number }
