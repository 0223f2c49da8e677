// The ceiling: the fastest a plain Node.js HTTP server answers the bench's requests on this
// machine. It reads each request to its end (as the service must), then writes the response
// the service gave to the same request: same status, headers and body bytes, precomputed.
// Run as its own process by bench/processes.ts; the answers arrive over IPC.
import { createServer } from 'node:http'

export interface CeilingRoute {
  /** `${method} ${path with query}`, as the request line has them. */
  key: string
  status: number
  headers: Record<string, string>
  /** base64: IPC carries JSON. */
  body: string
}

interface Answer {
  status: number
  headers: Record<string, string>
  body: Buffer
}

const NOT_FOUND: Answer = { status: 404, headers: { 'content-type': 'text/plain' }, body: Buffer.from('no route') }
let answers = new Map<string, Answer>()

const server = createServer((req, res) => {
  const answer = answers.get(`${req.method} ${req.url}`) ?? NOT_FOUND
  const send = () => {
    res.writeHead(answer.status, answer.headers)
    res.end(answer.body)
  }
  req.on('end', send)
  req.resume()
})

/**
 * With --fastify: the framework's floor instead. A bare Fastify app (defaults, no plugins, no
 * hooks) with one catch-all route sending the same precomputed answers, so the bench can show
 * how much of the gap to the node:http ceiling is Fastify's own routing, body parsing and reply.
 */
async function listenFastify(): Promise<number> {
  const { default: Fastify } = await import('fastify')
  const app = Fastify()
  app.all('*', (request, reply) => {
    const answer = answers.get(`${request.method} ${request.url}`) ?? NOT_FOUND
    void reply.code(answer.status).headers(answer.headers).send(answer.body)
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  return typeof address === 'object' && address ? address.port : 0
}

if (process.argv.includes('--fastify')) {
  void listenFastify().then((port) => process.send?.({ port }))
} else {
  server.listen(0, '127.0.0.1', () => {
    const address = server.address()
    process.send?.({ port: typeof address === 'object' && address ? address.port : 0 })
  })
}

process.on('message', (message: { routes: CeilingRoute[] }) => {
  answers = new Map(
    message.routes.map((r) => [r.key, { status: r.status, headers: r.headers, body: Buffer.from(r.body, 'base64') }]),
  )
  process.send?.({ ok: true })
})

process.on('SIGTERM', () => {
  if (server.listening) {
    server.close()
    server.closeAllConnections()
  }
  process.disconnect?.()
  process.exit(0)
})
