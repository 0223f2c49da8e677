// GET /healthz (the process answers) and GET /readyz (the store answers too, in bounded time: a hung database fails it).
import type { FastifyInstance } from 'fastify'
import { healthz, readyz } from '../schemas/health.js'
import type { Store } from '../store/types.js'

export function healthRoutes(app: FastifyInstance, store: Store, readinessTimeoutMs = 2000): void {
  app.get('/healthz', {
    schema: healthz,
    handler: async () => ({ status: 'ok' as const }),
  })

  app.get('/readyz', {
    schema: readyz,
    handler: async (request, reply) => {
      let timer: NodeJS.Timeout | undefined
      const timeout = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${readinessTimeoutMs} ms`)), readinessTimeoutMs)
      })
      try {
        await Promise.race([store.ping(), timeout])
        return { status: 'ok' as const }
      } catch (err) {
        request.log.warn({ err }, 'readiness check failed')
        // The cause stays in the log: the probe is public and needs only the verdict.
        return reply.code(503).send({ status: 'unavailable', message: 'The database does not answer' })
      } finally {
        clearTimeout(timer)
      }
    },
  })
}
