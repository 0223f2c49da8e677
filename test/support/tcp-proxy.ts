// A TCP proxy in front of PostgreSQL or Redis, so a test can take "the database" away from one
// store without touching the shared server: 'forward' passes bytes through, 'reset' drops every
// connection (like a server that went down), 'blackhole' accepts and never answers (like a
// host that vanished from the network).
import net from 'node:net'

export type ProxyMode = 'forward' | 'reset' | 'blackhole'

export interface TcpProxy {
  port: number
  /** Switches mode; leaving 'forward' also cuts the connections open now. */
  setMode(mode: ProxyMode): void
  close(): Promise<void>
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  let mode: ProxyMode = 'forward'
  const open = new Set<net.Socket>()
  const server = net.createServer((client) => {
    open.add(client)
    client.on('close', () => open.delete(client))
    client.on('error', () => {})
    if (mode === 'reset') return void client.destroy()
    if (mode === 'blackhole') return // accepted, never answered
    const upstream = net.connect(targetPort, targetHost)
    open.add(upstream)
    upstream.on('close', () => {
      open.delete(upstream)
      client.destroy()
    })
    upstream.on('error', () => client.destroy())
    client.on('close', () => upstream.destroy())
    client.pipe(upstream)
    upstream.pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as net.AddressInfo).port,
    setMode(next) {
      mode = next
      if (next !== 'forward') for (const socket of open) socket.destroy()
    },
    async close() {
      for (const socket of open) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** The URL with its host and port replaced by the proxy's. */
export function throughProxy(url: string, proxy: TcpProxy): string {
  const u = new URL(url)
  u.hostname = '127.0.0.1'
  u.port = String(proxy.port)
  return u.toString()
}
