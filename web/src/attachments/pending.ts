// Files added offline wait on this device with their note: the note's Markdown links to them by a
// local id (`/attachments/local-<uuid>/<name>`), their bytes are in the account's database
// (file-store.ts). When the outbox sends the note, each such file is uploaded first and the link
// rewritten to the one the upload got, so the server never sees a local id. An upload done once
// is not done again: the local id keeps the link it got, should the note fail on the way after it.
import type { AttachmentAnswer } from '../../../src/attachment-shape.js'
import type { NoteFields } from '../api'
import { pendingUpload, uploaded } from './file-store'
import { fileUrl } from './urls'

export { uploadRequest } from './upload-request'

const LOCAL_LINK =
  /\/attachments\/(local-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:\/[^\s()<>"'\]]*)?/g

/** Whether a note's content links to a file added offline. */
export const linksLocalFiles = (content: string) => content.includes('/attachments/local-')

/**
 * `fields` with every link to a file added offline rewritten to its uploaded link, uploading with
 * `upload` those not uploaded yet. A failed upload rejects as `upload` does (the outbox then waits,
 * or keeps the change as refused with the API's message); a local id this device does not know is
 * left as it is (the note then shows it as missing).
 */
export async function withUploads(
  userId: string,
  fields: NoteFields,
  upload: (blob: Blob, name: string) => Promise<AttachmentAnswer>,
): Promise<NoteFields> {
  if (!linksLocalFiles(fields.content)) return fields
  const urls = new Map<string, string>()
  for (const [, id] of fields.content.matchAll(LOCAL_LINK)) {
    if (!id || urls.has(id)) continue
    const pending = await pendingUpload(userId, id)
    let url = pending?.url
    if (!url && pending?.blob) {
      const answer = await upload(pending.blob, pending.name)
      url = fileUrl(answer._id, answer.name)
      await uploaded(userId, id, url)
    }
    if (url) urls.set(id, url)
  }
  const content = fields.content.replace(LOCAL_LINK, (link, id: string) => urls.get(id) ?? link)
  return { ...fields, content }
}
