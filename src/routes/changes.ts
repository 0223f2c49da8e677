// GET /get-changes (docs/contract.md, "Change feed"): a thin handler over services/changes.ts. The notes are the stored
// JSON the listing sends, so the body is joined as text, as the listing's is.
import type { Static } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import type { Authenticate } from '../plugins/auth.js'
import { LIMIT_OUT_OF_RANGE, getChanges } from '../schemas/changes.js'
import { CHANGES_LIMIT, type ChangesAnswer, readChanges } from '../services/changes.js'
import type { Store } from '../store/types.js'
import { badRequest } from '../errors.js'

/** The 200 body as JSON text: each note as stored, never parsed and written again. */
export function changesBody(answer: ChangesAnswer): string {
  const changes = answer.changes
    .map((c) => `{"noteId":${JSON.stringify(c.noteId)},"note":${c.json ?? 'null'}}`)
    .join(',')
  return `{"error":false,"changes":[${changes}],"cursor":${JSON.stringify(answer.cursor)},"more":${answer.more},"message":"Changes retrieved successfully"}`
}

export function changeRoutes(app: FastifyInstance, store: Store, authenticate: Authenticate): void {
  app.get<{ Querystring: Static<typeof getChanges.querystring> }>('/get-changes', {
    onRequest: authenticate,
    schema: getChanges,
    handler: async (request, reply) => {
      const { since } = request.query
      const limit = request.query.limit === undefined ? CHANGES_LIMIT.default : Number(request.query.limit)
      if (limit > CHANGES_LIMIT.max) throw badRequest(LIMIT_OUT_OF_RANGE)
      const answer = await readChanges(store, request.user._id, since, limit)
      return reply.type('application/json; charset=utf-8').send(changesBody(answer))
    },
  })
}
