// The attachments section of the PostgreSQL driver (mirrors sqlite/attachments.ts; store/attachments.ts). The
// quota's sum and the insert run under a transaction-scoped lock of the account's attachments, so two uploads at
// once cannot both pass it; the links from notes are the triggers' (migration 18).
import type pg from 'pg'
import type { AttachmentRecord } from '../../attachment-shape.js'
import type { AttachmentStore } from '../attachments.js'
import { AttachmentQuotaExceededError } from '../errors.js'
import type { StoreLimits } from '../limits.js'
import { SWEEP_BATCH } from '../trash-history.js'
import { type Query, inTransaction, queryOn, unlessAccountGone } from './query.js'

export const ATTACHMENT_COLUMNS = 'id, user_id, name, type, size, sha256, blob_key, created_on'

/** The advisory lock class of an account's attachment quota (another class than the change feed's). */
const ATTACHMENT_LOCK_CLASS = 7_300_018

export type AttachmentRow = {
  id: string
  user_id: string
  name: string
  type: string
  size: string
  sha256: string
  blob_key: string
  created_on: string
}

export const attachmentFromRow = (row: AttachmentRow): AttachmentRecord => ({
  _id: row.id,
  name: row.name,
  type: row.type,
  size: Number(row.size),
  sha256: row.sha256,
  createdOn: row.created_on,
  userId: row.user_id,
  blobKey: row.blob_key,
})

export const attachmentValues = (r: AttachmentRecord) => [
  r._id,
  r.userId,
  r.name,
  r.type,
  r.size,
  r.sha256,
  r.blobKey,
  r.createdOn,
]

/** The bytes an account's attachments hold, over a query function (a transaction's too: the quota's check). */
async function bytesOf(query: Query, userId: string): Promise<number> {
  const { rows } = await query<{ bytes: string }>(
    'attachments.bytes',
    'SELECT coalesce(sum(size), 0) AS bytes FROM attachments WHERE user_id = $1',
    [userId],
  )
  return Number(rows[0]!.bytes)
}

export function postgresAttachments(query: Query, pool: pg.Pool, limits: StoreLimits): AttachmentStore {
  const insert = `INSERT INTO attachments (${ATTACHMENT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`
  const limit = limits.attachmentBytes
  return {
    insertAttachment: (record) => {
      if (limit === 0)
        return unlessAccountGone(query('attachments.insert', insert, attachmentValues(record)).then(() => true))
      return unlessAccountGone(
        inTransaction(pool, async (client) => {
          const on = queryOn(client)
          await on('attachments.lock', 'SELECT pg_advisory_xact_lock($1, hashtext($2))', [
            ATTACHMENT_LOCK_CLASS,
            record.userId,
          ])
          if ((await bytesOf(on, record.userId)) + record.size > limit) throw new AttachmentQuotaExceededError(limit)
          await on('attachments.insert', insert, attachmentValues(record))
          return true
        }),
      )
    },
    findAttachment: async (userId, attachmentId) => {
      const { rows } = await query<AttachmentRow>(
        'attachments.find',
        `SELECT ${ATTACHMENT_COLUMNS} FROM attachments WHERE user_id = $1 AND id = $2`,
        [userId, attachmentId],
      )
      return rows[0] && attachmentFromRow(rows[0])
    },
    listAttachments: async (userId) => {
      const { rows } = await query<AttachmentRow & { notes: string[] }>(
        'attachments.list',
        `SELECT ${ATTACHMENT_COLUMNS}, ARRAY(SELECT DISTINCT note_id FROM attachment_refs r WHERE r.attachment_id = a.id
           ORDER BY note_id) AS notes
         FROM attachments a WHERE user_id = $1 ORDER BY created_on DESC, id DESC`,
        [userId],
      )
      return rows.map((row) => ({ ...attachmentFromRow(row), notes: row.notes }))
    },
    attachmentBytes: (userId) => bytesOf(query, userId),
    deleteAttachment: async (userId, attachmentId) => {
      const { rows } = await query<AttachmentRow>(
        'attachments.delete',
        `DELETE FROM attachments WHERE user_id = $1 AND id = $2 RETURNING ${ATTACHMENT_COLUMNS}`,
        [userId, attachmentId],
      )
      return rows[0] && attachmentFromRow(rows[0])
    },
    // SKIP LOCKED: instances sweeping at once take different rows, and none waits for another.
    sweepAttachments: async ({ uploadedBefore, unreferencedBefore }) => {
      const { rows } = await query<{ id: string; user_id: string; blob_key: string; size: string }>(
        'attachments.sweep',
        `DELETE FROM attachments WHERE id IN (SELECT id FROM attachments
           WHERE (NOT referenced AND created_on < $1) OR (referenced AND unreferenced_since < $2)
           LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED)
         RETURNING id, user_id, blob_key, size`,
        [uploadedBefore, unreferencedBefore],
      )
      return rows.map((r) => ({ _id: r.id, userId: r.user_id, blobKey: r.blob_key, size: Number(r.size) }))
    },
    knownBlobKeys: async (keys) => {
      const { rows } = await query<{ blob_key: string }>(
        'attachments.knownKeys',
        'SELECT blob_key FROM attachments WHERE blob_key = ANY($1::text[])',
        [keys],
      )
      return new Set(rows.map((r) => r.blob_key))
    },
    moveAttachmentBlob: async (attachmentId, fromKey, toKey) => {
      const { rowCount } = await query(
        'attachments.moveBlob',
        'UPDATE attachments SET blob_key = $1 WHERE id = $2 AND blob_key = $3',
        [toKey, attachmentId, fromKey],
      )
      return rowCount === 1
    },
  }
}
