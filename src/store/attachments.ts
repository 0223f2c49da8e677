// The Store's attachments section (docs/attachments.md): the records of uploaded files, whose bytes live in the blob
// storage (src/blobs/), and what links to them. Notes' links are kept by the database itself in each note write's
// transaction (migration 18), so no note method takes part. Every query takes the owner's id but the sweep's and
// the move between blob drivers' (`attachments migrate`). Each driver implements it in its attachments.ts.
import type { AttachmentRecord } from '../attachment-shape.js'

/** An attachment with the notes whose text, trash or kept history links to it, in id order. */
export type ListedAttachmentRecord = AttachmentRecord & { notes: string[] }

/** What the attachment sweep erases (services/attachments-sweep.ts). */
export interface AttachmentCutoffs {
  /** Attachments no note ever linked to, uploaded before this. */
  uploadedBefore: string
  /** Attachments whose last link went before this. */
  unreferencedBefore: string
}

/** An erased record's bytes: the caller erases them from the blob storage once the record is gone. */
export type ErasedAttachment = Pick<AttachmentRecord, '_id' | 'userId' | 'blobKey' | 'size'>

export interface AttachmentStore {
  /**
   * Inserts the record: false when its account is gone. AttachmentQuotaExceededError (nothing stored): the account's
   * attachments would pass the store's attachment quota (limits.ts).
   */
  insertAttachment(record: AttachmentRecord): Promise<boolean>
  findAttachment(userId: string, attachmentId: string): Promise<AttachmentRecord | undefined>
  /** The account's attachments, newest first. */
  listAttachments(userId: string): Promise<ListedAttachmentRecord[]>
  /** The bytes the account's attachments hold. */
  attachmentBytes(userId: string): Promise<number>
  /** Erases the record, whatever links to it: the record as it was, or undefined when the account has none by that id. */
  deleteAttachment(userId: string, attachmentId: string): Promise<AttachmentRecord | undefined>
  /** Erases one batch (at most SWEEP_BATCH) of the records the cutoffs name, safe on many instances at once. */
  sweepAttachments(cutoffs: AttachmentCutoffs): Promise<ErasedAttachment[]>
  /** Of these blob keys, those some record names. */
  knownBlobKeys(keys: readonly string[]): Promise<Set<string>>
  /**
   * Points the record at its bytes' new key (`attachments migrate`), only while it still names `fromKey`: false when
   * it was erased or moved meanwhile. The caller erases the bytes no record names any more.
   */
  moveAttachmentBlob(attachmentId: string, fromKey: string, toKey: string): Promise<boolean>
}
