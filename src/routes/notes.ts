// The note endpoints (docs/contract.md, "Endpoints"): they parse, call NoteService (the rules) and shape the reply.
import type { Static } from '@sinclair/typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { type Authenticate, sendUnauthorized } from '../plugins/auth.js'
import type { NoteService } from '../services/notes.js'
import type { JsonText } from '../store/types.js'
import { addNote, deleteNote, editNote, getAllNotes, pinNote, searchNotes } from '../schemas/notes.js'
import { dropFalsyFields, dropFalsyQueryFields, emptyBodyIsObject } from './falsy.js'
import { expectedOf, withVersion } from './if-match.js'

type Params = Static<typeof editNote.params>

const TRAILING_SPACE_500 = { internalErrorMessage: 'Internal Server Error ' }

/** A 200 body `{error: false, notes, message}` around notes that are JSON text already; Fastify sends it as it is. */
const notesBody = (message: string) => {
  const head = '{"error":false,"notes":'
  const tail = `,"message":${JSON.stringify(message)}}`
  const [headBytes, tailBytes] = [Buffer.from(head), Buffer.from(tail)]
  return {
    text: (notes: string): string => head + notes + tail,
    bytes: (notes: Buffer): Buffer => Buffer.concat([headBytes, notes, tailBytes]),
  }
}
const searchBody = notesBody('Notes matching the search query retrieved successfully').text

/** The listing's body, made once per cached Buffer (the same while the notes are unchanged), held weakly (docs/performance.md). */
const listingBody = (() => {
  const wrap = notesBody('All notes retrieved successfully')
  const bodies = new WeakMap<Buffer, Buffer>()
  return (notes: JsonText): JsonText => {
    if (typeof notes === 'string') return wrap.text(notes)
    let body = bodies.get(notes)
    if (body === undefined) bodies.set(notes, (body = wrap.bytes(notes)))
    return body
  }
})()

/** Over 16 Ki characters, a string goes as its UTF-8 Buffer: Node would first allocate three bytes per character. */
function sendJson(reply: FastifyReply, body: JsonText): FastifyReply {
  const bytes = typeof body === 'string' && body.length > 16 * 1024 ? Buffer.from(body) : body
  return reply.type('application/json; charset=utf-8').send(bytes)
}

export function noteRoutes(app: FastifyInstance, notes: NoteService, authenticate: Authenticate): void {
  app.post<{ Body: Static<typeof addNote.body> }>('/add-note', {
    onRequest: authenticate,
    preValidation: dropFalsyFields,
    schema: addNote,
    handler: async (request, reply) => {
      const note = await notes.add(request.user._id, request.body)
      // The account was deleted after the authenticate hook found it: 401, as the hook answers.
      if (!note) return sendUnauthorized(reply)
      return { error: false, note: withVersion(reply, note), message: 'Note added successfully' }
    },
  })

  app.put<{ Body: Static<typeof editNote.body>; Params: Params }>('/edit-note/:noteId', {
    onRequest: authenticate,
    preValidation: dropFalsyFields,
    config: TRAILING_SPACE_500,
    schema: editNote,
    handler: async (request, reply) => {
      const note = await notes.edit(request.user._id, request.params.noteId, request.body, expectedOf(request))
      return { error: false, note: withVersion(reply, note), message: 'Note updated successfully' }
    },
  })

  app.delete<{ Params: Params }>('/delete-note/:noteId', {
    onRequest: authenticate,
    config: TRAILING_SPACE_500,
    schema: deleteNote,
    handler: async (request, reply) => {
      const note = await notes.delete(request.user._id, request.params.noteId, expectedOf(request))
      return { error: false, note: withVersion(reply, note), message: 'Note deleted successfully' }
    },
  })

  app.put<{ Body: Static<typeof pinNote.body>; Params: Params }>('/update-note-pinned/:noteId', {
    onRequest: authenticate,
    preValidation: emptyBodyIsObject, // here `false` is a value, not an absence
    config: TRAILING_SPACE_500,
    schema: pinNote,
    handler: async (request, reply) => {
      const note = await notes.setPinned(
        request.user._id,
        request.params.noteId,
        request.body.isPinned,
        expectedOf(request),
      )
      return { error: false, note: withVersion(reply, note), message: 'Note updated successfully' }
    },
  })

  app.get('/get-all-notes', {
    onRequest: authenticate,
    schema: getAllNotes,
    // The versions the hook read serve the cache check too. Not async: a kept listing is sent without a promise of its own.
    handler: (request, reply) => {
      notes.listJson(request.user._id, request.versionsChecked).then(
        (json) => sendJson(reply, listingBody(json)),
        (err: unknown) => reply.send(err),
      )
    },
  })

  app.get<{ Querystring: Static<typeof searchNotes.querystring> }>('/search-notes', {
    onRequest: authenticate,
    preValidation: dropFalsyQueryFields,
    schema: searchNotes,
    handler: async (request, reply) =>
      sendJson(reply, searchBody(await notes.searchJson(request.user._id, request.query.query))),
  })
}
