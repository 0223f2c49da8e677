// How the metrics are served: GET /metrics on the API's port, or only by METRICS_PORT's listener.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { metrics as metricsSchema } from '../../schemas/metrics.js'
import type { Metrics } from './definitions.js'

/** /metrics on the API's port, when METRICS_PORT is unset. */
export function registerMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.get('/metrics', {
    schema: metricsSchema,
    handler: async (_request, reply) => {
      const text = await metrics.registry.metrics()
      return reply.type(metrics.registry.contentType).send(text)
    },
  })
}

/** METRICS_PORT's listener: GET /metrics and nothing else. */
export async function listenForMetrics(metrics: Metrics, host: string, port: number) {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]
    if (request.method !== 'GET' || (path !== '/metrics' && path !== '/metrics/')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not Found')
      return
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Internal Server Error'),
    )
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => resolve())
  })
  const address = server.address() as AddressInfo
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return {
    url: `http://${shownHost}:${address.port}`,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())))
    },
  }
}
