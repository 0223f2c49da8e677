// The note versions of HTTP (docs/history.md): a single-note answer carries its updatedOn as a strong entity tag,
// and If-Match (RFC 9110 §13.1.1) names the versions a write may apply to.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { badRequest } from '../errors.js'
import type { NoteRecord } from '../note-shape.js'
import type { Expected } from '../services/notes.js'

const TAG = String.raw`(?:W/)?"[\x21\x23-\x7e\x80-\xff]*"`
/** `#entity-tag`: a list whose empty elements are allowed (RFC 9110 §5.6.1.2), at least one tag. */
const TAG_LIST = new RegExp(String.raw`^(?:\s*,)*\s*${TAG}(?:\s*,(?:\s*${TAG})?)*\s*$`)
const TAGS = new RegExp(TAG, 'g')

export const MALFORMED_IF_MATCH = 'If-Match must be "*" or a list of quoted entity tags'

/** The versions If-Match accepts: undefined without the header or with `*` (the note exists); weak tags never match. */
export function expectedOf(request: FastifyRequest): Expected {
  const header = request.headers['if-match']
  if (header === undefined) return undefined
  const value = Array.isArray(header) ? header.join(', ') : header
  if (value.trim() === '*') return undefined
  if (!TAG_LIST.test(value)) throw badRequest(MALFORMED_IF_MATCH)
  return (value.match(TAGS) ?? []).filter((tag) => !tag.startsWith('W/')).map((tag) => tag.slice(1, -1))
}

/** The note's version as its ETag. */
export function withVersion(reply: FastifyReply, note: NoteRecord): NoteRecord {
  void reply.header('etag', `"${note.updatedOn}"`)
  return note
}
