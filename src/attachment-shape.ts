// An attachment's shape, written once: the upload's answer, the listing, the stored columns, and the web app's and
// the tests' types derive from it (docs/attachments.md). A leaf, so every layer may read it.
import { type Static, Type } from '@sinclair/typebox'

/** An attachment as every endpoint returns it, keys in this order; `url` is what a note's Markdown links to. */
export const Attachment = Type.Object({
  _id: Type.String(),
  name: Type.String(),
  type: Type.String(),
  size: Type.Integer({ minimum: 0 }),
  sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  createdOn: Type.String(),
  url: Type.String(),
})
export type AttachmentAnswer = Static<typeof Attachment>

/** What the store keeps of an attachment: the answer but its url, with whose it is and where its bytes are. */
export type AttachmentRecord = Omit<AttachmentAnswer, 'url'> & { userId: string; blobKey: string }

/** An attachment in GET /get-attachments: with the notes whose text, trash or kept history links to it. */
export const ListedAttachment = Type.Object({ ...Attachment.properties, notes: Type.Array(Type.String()) })
export type ListedAttachmentAnswer = Static<typeof ListedAttachment>

/** The link a note's Markdown makes to an attachment; the name segment is optional and only checked. */
export const attachmentUrl = (record: Pick<AttachmentRecord, '_id' | 'name'>): string =>
  `/attachments/${record._id}/${encodeURIComponent(record.name)}`

/** The answer's form of a stored record. */
export function attachmentAnswer(record: AttachmentRecord): AttachmentAnswer {
  const { _id, name, type, size, sha256, createdOn } = record
  return { _id, name, type, size, sha256, createdOn, url: attachmentUrl(record) }
}
