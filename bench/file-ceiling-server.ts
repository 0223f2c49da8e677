// The ceiling of bench/attachments.ts: the fastest a plain Node.js HTTP server takes in and gives out a large file
// over loopback on this machine. An upload is read to its end through SHA-256 (the least the service does with each
// byte) and answered with a link to as many MiB; GET /bytes/<MiB> streams that many MiB of one random MiB, held in
// memory, minding backpressure. Forked by bench/attachments.ts; sends `{port}` over IPC once it listens.
import { createHash, randomBytes } from 'node:crypto'
import { createServer } from 'node:http'

const MB = 2 ** 20
const CHUNK = randomBytes(MB)

const server = createServer((req, res) => {
  const wanted = /^\/bytes\/(\d+)$/.exec(req.url ?? '')
  if (req.method === 'GET' && wanted) {
    let left = Number(wanted[1])
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': left * MB })
    const pump = () => {
      while (left > 0) {
        left -= 1
        if (!res.write(CHUNK)) return void res.once('drain', pump)
      }
      res.end()
    }
    return pump()
  }
  const hash = createHash('sha256')
  let received = 0
  req.on('data', (piece: Buffer) => {
    hash.update(piece)
    received += piece.length
  })
  req.on('end', () => {
    hash.digest()
    const url = `/bytes/${Math.round(received / MB)}`
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ attachment: { _id: 'ceiling', url } }))
  })
})

server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  process.send?.({ port: typeof address === 'object' && address ? address.port : 0 })
})

process.on('SIGTERM', () => {
  server.close()
  server.closeAllConnections()
  process.disconnect?.()
  process.exit(0)
})
