// A TCP proxy in front of PostgreSQL that can hold back notices: it forwards everything, except
// that while `dropNotices` is set it leaves out the server's NotificationResponse messages, as a
// connection through PgBouncer in transaction pooling mode (or any path that loses them) would;
// while `delayNoticesMs` is set it passes them that much later (and what follows them, in order),
// as a listener on a machine short of CPU gets them.
// The server-to-client stream is a sequence of messages: a type byte, then an Int32 length that
// counts itself and the body (https://www.postgresql.org/docs/current/protocol-message-formats.html).
import net from 'node:net'

export interface NoticeFilter {
  port: number
  dropNotices: boolean
  /** Notices forwarded so far. */
  forwarded: number
  delayNoticesMs: number
  close(): Promise<void>
}

const NOTIFICATION_RESPONSE = 'A'.charCodeAt(0)

export async function startNoticeFilter(targetHost: string, targetPort: number): Promise<NoticeFilter> {
  const open = new Set<net.Socket>()
  const filter: NoticeFilter = { port: 0, dropNotices: false, forwarded: 0, delayNoticesMs: 0, close: async () => {} }
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, targetHost)
    for (const socket of [client, upstream]) {
      open.add(socket)
      socket.on('close', () => open.delete(socket))
      socket.on('error', () => {})
    }
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
    client.pipe(upstream)
    let pending = Buffer.alloc(0)
    /** Writes to the client, in order: a delayed notice holds back what follows it. */
    let queue = Promise.resolve()
    upstream.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk])
      let at = 0
      const kept: Buffer[] = []
      while (pending.length - at >= 5) {
        const size = 1 + pending.readInt32BE(at + 1)
        if (pending.length - at < size) break
        const notice = pending[at] === NOTIFICATION_RESPONSE
        if (!(filter.dropNotices && notice)) kept.push(pending.subarray(at, at + size))
        if (notice && !filter.dropNotices) filter.forwarded++
        at += size
      }
      pending = pending.subarray(at)
      if (kept.length === 0) return
      const out = Buffer.concat(kept)
      const delay = kept.some((m) => m[0] === NOTIFICATION_RESPONSE) ? filter.delayNoticesMs : 0
      queue = queue.then(async () => {
        if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay))
        client.write(out)
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  filter.port = (server.address() as net.AddressInfo).port
  filter.close = async () => {
    for (const socket of open) socket.destroy()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  return filter
}
