// An attachment's record in an export's attachments.json (docs/migration.md, "Attachments"): what the listing shows
// but its url and links, `_id` an ObjectId and `createdOn` a date as in the notes' file, `userId` a string as a note's.
// Where the bytes are kept is each store's own business: no blob key is written or read.
import type { ExportedAttachment } from './formats/ejson-records.js'
import { storedName } from '../services/attachment-files.js'
import { RecordError, asDocument, idOf, requiredDateOf, stringOf } from './records.js'

const SHA256 = /^[0-9a-f]{64}$/
/** A media type as the service stores one: type/subtype, lower case, no parameters. */
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/

/** A document of attachments.json, checked as an upload would have made it. */
export function attachmentFromDocument(value: unknown): ExportedAttachment {
  const doc = asDocument(value)
  const _id = idOf(doc, '_id')
  const userId = idOf(doc, 'userId')
  const name = stringOf(doc, 'name', false)
  if (storedName(name) !== name)
    throw new RecordError('name is not one an upload keeps (a path, control characters, or too long)')
  const type = stringOf(doc, 'type', false)
  if (!MEDIA_TYPE.test(type)) throw new RecordError('type is not a media type')
  const size = doc.size
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0)
    throw new RecordError('size is not a whole number of bytes')
  const sha256 = stringOf(doc, 'sha256', false)
  if (!SHA256.test(sha256)) throw new RecordError('sha256 is not 64 lower-case hex digits')
  return { _id, name, type, size, sha256, createdOn: requiredDateOf(doc, 'createdOn'), userId }
}

export { type ExportedAttachment, attachmentToEjson } from './formats/ejson-records.js'
