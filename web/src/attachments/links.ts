// The links a note's Markdown makes to its attachments: `/attachments/<id>/<name>`, the name
// percent-encoded (docs/attachments.md). An attachment added while offline has a local id
// (`local-<uuid>`) until its upload is sent from the outbox, which rewrites the link. markdown.ts
// makes a slot of any path under /attachments/; this says which of them is one.

/** `/attachments/<id>` or `/attachments/<id>/<name>`: a server id (24 hex digits) or a local one; nothing else. */
const ATTACHMENT_PATH =
  /^\/attachments\/([0-9a-f]{24}|local-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:\/([^/?#]*))?$/

export interface AttachmentLink {
  id: string
  /** The name the link gives, decoded; undefined when it gives none. */
  name: string | undefined
}

/** The attachment a link's URL names, or undefined when it is not one (another path, a host, a malformed name). */
export function attachmentOf(url: string): AttachmentLink | undefined {
  const match = ATTACHMENT_PATH.exec(url)
  if (!match) return undefined
  try {
    return { id: match[1]!, name: match[2] ? decodeURIComponent(match[2]) : undefined }
  } catch {
    return undefined
  }
}
