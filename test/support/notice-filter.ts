// A TCP proxy in front of PostgreSQL that can hold back notices: it forwards everything, except
// that while `dropNotices` is set it leaves out the server's NotificationResponse messages, as a
// connection through PgBouncer in transaction pooling mode (or any path that loses them) would.
// The server-to-client stream is a sequence of messages: a type byte, then an Int32 length that
// counts itself and the body (https://www.postgresql.org/docs/current/protocol-message-formats.html).
import net from 'node:net'

export interface NoticeFilter {
  port: number
  dropNotices: boolean
  close(): Promise<void>
}

const NOTIFICATION_RESPONSE = 'A'.charCodeAt(0)

export async function startNoticeFilter(targetHost: string, targetPort: number): Promise<NoticeFilter> {
  const open = new Set<net.Socket>()
  const filter: NoticeFilter = { port: 0, dropNotices: false, close: async () => {} }
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
    upstream.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk])
      let at = 0
      const kept: Buffer[] = []
      while (pending.length - at >= 5) {
        const size = 1 + pending.readInt32BE(at + 1)
        if (pending.length - at < size) break
        if (!(filter.dropNotices && pending[at] === NOTIFICATION_RESPONSE)) kept.push(pending.subarray(at, at + size))
        at += size
      }
      pending = pending.subarray(at)
      if (kept.length > 0) client.write(Buffer.concat(kept))
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
