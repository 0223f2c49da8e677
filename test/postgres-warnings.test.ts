// The service on PostgreSQL makes node-postgres warn about nothing: in particular it never sends a
// query on a client while another is queued there, which pg deprecates (pg 9 will refuse it).
// Concurrent writes are what queued them: each publishes on the change bus's one connection
// (store/postgres/notice-listener.ts). The other connections are pg-pool's, which hands a client
// to one query at a time.
// A file of its own: Node prints each deprecation once per process, and node --test runs every
// file in a process of its own, so nothing run before these tests can have used a warning up.
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { parseConfig } from '../src/config.js'
import { type RunningServer, startServer } from '../src/server.js'
import { NoticeListener } from '../src/store/postgres/notice-listener.js'
import { TEST_SECRET, type Client, register, urlClient } from './support/harness.js'
import { type TestDatabase, createTestDatabase, serviceAvailable } from './support/services.js'
import { openStream } from './support/sse.js'

const warnings: string[] = []
process.on('warning', (warning) => warnings.push(`${warning.name}: ${warning.message}`))

if (serviceAvailable('postgresql')) {
  describe('node-postgres warns about nothing the service does', () => {
    let db: TestDatabase
    before(async () => {
      db = await createTestDatabase()
    })
    after(async () => {
      await db?.drop()
    })

    it(
      'a notice listener sends notices asked for at once one after another, each delivered',
      { timeout: 60_000 },
      async () => {
        const channel = 'notes_service_warnings_test'
        const received: string[] = []
        let becameLive!: () => void
        const live = new Promise<void>((resolve) => (becameLive = resolve))
        const listener = new NoticeListener({
          url: db.url,
          connectTimeoutMs: 5000,
          checkTimeoutMs: 30_000,
          // Checks as often as possible, so that some overlap the notices.
          checkEveryMs: 1,
          applicationName: 'notes-service warnings test',
          channels: [channel],
          onNotice: (_channel, payload) => received.push(payload),
          onLive: (isLive) => isLive && becameLive(),
        })
        try {
          void listener.start()
          await live
          const payloads = Array.from({ length: 50 }, (_, i) => String(i))
          await Promise.all(payloads.map((payload) => listener.notify(channel, payload)))
          while (received.length < payloads.length) await new Promise((resolve) => setTimeout(resolve, 10))
          assert.deepEqual(received, payloads)
        } finally {
          await listener.close()
        }
        assert.deepEqual(warnings, [])
      },
    )

    describe('two instances with PostgreSQL as the change bus, under concurrent requests of every kind', () => {
      let servers: RunningServer[] = []
      before(async () => {
        const config = parseConfig({
          HOST: '127.0.0.1',
          PORT: '0',
          LOG_LEVEL: 'silent',
          DATABASE_URL: db.url,
          DATABASE_POOL_SIZE: '4',
          ACCESS_TOKEN_SECRET: TEST_SECRET,
        })
        servers = await Promise.all([startServer(config), startServer(config)])
      })
      after(async () => {
        await Promise.all(servers.map((server) => server.close()))
      })

      it('answers every request without a 5xx, and no warning is emitted', async () => {
        assert.deepEqual(
          servers.map((server) => server.changeBus),
          ['postgresql', 'postgresql'],
        )
        const bases = servers.map((server) => `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`)
        const [a, b] = bases.map(urlClient) as [Client, Client]
        const account = await register(a)
        const token = account.token
        const stream = await openStream(bases[1]!, { token })
        try {
          /** Every answer but a 200, with its request and body, so that a failure says what it got. */
          const refused: string[] = []
          const send = async (client: Client, method: string, path: string, body?: unknown) => {
            const reply = await client.request(method, path, { token, ...(body !== undefined && { body }) })
            if (reply.status !== 200) refused.push(`${method} ${path}: ${reply.status} ${reply.text.slice(0, 200)}`)
            return reply
          }
          const added = await Promise.all(
            Array.from({ length: 24 }, (_, i) =>
              send(i % 2 ? a : b, 'POST', '/add-note', { title: `note ${i}`, content: `word${i} shared` }),
            ),
          )
          const ids = added.map((reply) => (reply.json as { note: { _id: string } }).note._id)
          await Promise.all([
            ...ids.map((id, i) => send(i % 2 ? b : a, 'PUT', `/edit-note/${id}`, { content: `edited ${i}` })),
            ...ids.map((id, i) => send(i % 2 ? a : b, 'PUT', `/update-note-pinned/${id}`, { isPinned: i % 3 === 0 })),
            ...bases.map((_, i) => send(i ? b : a, 'GET', '/get-all-notes')),
            send(a, 'GET', '/search-notes?query=shared'),
            send(b, 'GET', '/get-changes'),
            send(a, 'PUT', '/edit-user', { fullName: 'Busy Person' }),
          ])
          await Promise.all(ids.slice(0, 8).map((id, i) => send(i % 2 ? a : b, 'DELETE', `/delete-note/${id}`)))
          await Promise.all(ids.slice(0, 4).map((id, i) => send(i % 2 ? b : a, 'PUT', `/restore-note/${id}`)))
          await send(b, 'GET', '/get-trash')
          await send(a, 'POST', '/logout')
          assert.deepEqual(refused, [])
          assert.equal(await stream.ended, 'end')
        } finally {
          stream.close()
        }
        assert.deepEqual(warnings, [])
      })
    })
  })
}
