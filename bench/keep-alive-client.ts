// JSON requests over one kept-alive connection (node:http, one socket per client), so a bench
// knows which connection, and so which worker, answers each request: the client end's port
// comes back with every answer.
import { Agent, request } from 'node:http'

export interface Answer {
  status: number
  body: string
  /** The client end's port of the connection that carried the request. */
  localPort: number
  /** performance.now() when the answer's last byte was read. */
  at: number
}

export class KeepAliveClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 })
  constructor(private readonly url: string, private readonly authorization: string) {}

  send(method: string, path: string, body?: unknown): Promise<Answer> {
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const headers: Record<string, string> = { authorization: this.authorization }
    if (payload !== undefined) headers['content-type'] = 'application/json'
    return new Promise((resolve, reject) => {
      const req = request(new URL(path, this.url), { method, headers, agent: this.agent }, (res) => {
        // Read now: once the answer ends, the socket goes back to the agent's pool.
        const localPort = res.socket.localPort ?? 0
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (text += chunk))
        res.once('end', () => resolve({ status: res.statusCode ?? 0, body: text, localPort, at: performance.now() }))
        res.once('error', reject)
      })
      req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path}: no answer within 30 s`)))
      req.once('error', reject)
      req.end(payload)
    })
  }

  close(): void {
    this.agent.destroy()
  }
}
