// The trash and history endpoints (docs/contract.md, "Trash, history and versions"), in the contract's style: thin handlers
// over NoteService, which holds the rules.
import type { Static } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import type { Authenticate } from '../plugins/auth.js'
import {
  deleteNoteForever,
  emptyTrash,
  getTrash,
  noteHistory,
  restoreNote,
  restoreRevision,
} from '../schemas/trash-and-history.js'
import type { NoteService } from '../services/notes.js'
import { expectedOf, withVersion } from './if-match.js'

type Params = Static<typeof restoreNote.params>

export function trashAndHistoryRoutes(app: FastifyInstance, notes: NoteService, authenticate: Authenticate): void {
  app.get('/get-trash', {
    onRequest: authenticate,
    schema: getTrash,
    handler: async (request) => ({
      error: false,
      notes: await notes.listTrash(request.user._id),
      message: 'Trash retrieved successfully',
    }),
  })

  app.put<{ Params: Params }>('/restore-note/:noteId', {
    onRequest: authenticate,
    schema: restoreNote,
    handler: async (request, reply) => {
      const note = await notes.restore(request.user._id, request.params.noteId)
      return { error: false, note: withVersion(reply, note), message: 'Note restored successfully' }
    },
  })

  app.delete<{ Params: Params }>('/delete-note-forever/:noteId', {
    onRequest: authenticate,
    schema: deleteNoteForever,
    handler: async (request) => {
      await notes.deleteForever(request.user._id, request.params.noteId)
      return { error: false, message: 'Note deleted forever' }
    },
  })

  app.delete('/empty-trash', {
    onRequest: authenticate,
    schema: emptyTrash,
    handler: async (request) => ({
      error: false,
      deleted: await notes.emptyTrash(request.user._id),
      message: 'Trash emptied',
    }),
  })

  app.get<{ Params: Params }>('/get-note-history/:noteId', {
    onRequest: authenticate,
    schema: noteHistory,
    handler: async (request) => ({
      error: false,
      revisions: await notes.history(request.user._id, request.params.noteId),
      message: 'Note history retrieved successfully',
    }),
  })

  app.put<{ Params: Static<typeof restoreRevision.params> }>('/restore-revision/:noteId/:revisionId', {
    onRequest: authenticate,
    schema: restoreRevision,
    handler: async (request, reply) => {
      const { noteId, revisionId } = request.params
      const note = await notes.restoreRevision(request.user._id, noteId, revisionId, expectedOf(request))
      return { error: false, note: withVersion(reply, note), message: 'Note updated successfully' }
    },
  })
}
