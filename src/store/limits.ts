// The limits a store is opened with (open.ts takes them from the configuration): they never change while it is open,
// so each driver keeps them and no Store method takes them (docs/architecture.md, "The store").
import { type AttachmentConfig, type NoteQuotaConfig, type RetentionConfig, defaultConfig } from '../config.js'
import type { NoteQuota } from './notes.js'

export interface StoreLimits {
  /** What one account may keep, enforced atomically with each note write (MAX_NOTES_PER_ACCOUNT, MAX_NOTE_MB_PER_ACCOUNT). */
  quota: NoteQuota
  /** The newest revisions kept of each note (HISTORY_REVISIONS): no answer lists more, and the sweep erases the rest; 0: none is kept. */
  keepRevisions: number
  /** The bytes one account's attachments may hold (MAX_ATTACHMENT_MB_PER_ACCOUNT), checked atomically with each upload's record; 0: no limit. */
  attachmentBytes: number
}

/** The revisions kept of each note: none when either bound of history is 0. */
export const revisionsKept = (retention: RetentionConfig): number =>
  retention.historyDays > 0 ? retention.historyRevisions : 0

/** The configured limits in the store's form: the quota in bytes instead of MB. */
export function storeLimitsOf(config: {
  noteQuota: NoteQuotaConfig
  retention: RetentionConfig
  attachments: AttachmentConfig
}): StoreLimits {
  return {
    quota: { notes: config.noteQuota.notes, bytes: config.noteQuota.megabytes * 2 ** 20 },
    keepRevisions: revisionsKept(config.retention),
    attachmentBytes: config.attachments.megabytesPerAccount * 2 ** 20,
  }
}

/** What a driver opened without limits holds to: no quota, and HISTORY_REVISIONS' default. */
export const DEFAULT_LIMITS: StoreLimits = {
  quota: { notes: 0, bytes: 0 },
  keepRevisions: revisionsKept(defaultConfig.retention),
  attachmentBytes: 0,
}
