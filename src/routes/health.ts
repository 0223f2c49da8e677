// GET /healthz (the process answers) and GET /readyz (the store answers too, in bounded time, so
// that a hung database makes it fail instead of hang).
import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import type { Store } from '../store/types.js'

export const READINESS_TIMEOUT_MS = 2000

const Up = Type.Object({ status: Type.Literal('ok') }, { description: 'Up.' })
const Down = Type.Object(
  { status: Type.Literal('unavailable'), message: Type.String() },
  { description: 'The store does not answer; the service cannot serve requests.' },
)

async function pingWithin(store: Store, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)
  })
  try {
    await Promise.race([store.ping(), timeout])
  } finally {
    clearTimeout(timer)
  }
}

export function healthRoutes(app: FastifyInstance, store: Store, readinessTimeoutMs = READINESS_TIMEOUT_MS): void {
  const tags = ['operations']
  app.get('/healthz', {
    schema: { tags, operationId: 'healthz', summary: 'Liveness: the process answers', response: { 200: Up } },
    handler: async () => ({ status: 'ok' as const }),
  })

  app.get('/readyz', {
    schema: { tags, operationId: 'readyz', summary: 'Readiness: the store answers', response: { 200: Up, 503: Down } },
    handler: async (request, reply) => {
      try {
        await pingWithin(store, readinessTimeoutMs)
        return { status: 'ok' as const }
      } catch (err) {
        request.log.warn({ err }, 'readiness check failed')
        // The cause stays in the log: the probe is public and needs only the verdict.
        return reply.code(503).send({ status: 'unavailable', message: 'The database does not answer' })
      }
    },
  })
}
