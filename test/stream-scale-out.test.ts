// Live updates across instances (docs/sync.md, "The change bus"): two instances on one PostgreSQL database, first with
// LISTEN/NOTIFY as their bus, then with Redis pub/sub. A write through A reaches a stream held on B, and a session
// ended through A closes B's stream within 1 s.
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { parseConfig } from '../src/config.js'
import { type RunningServer, startServer } from '../src/server.js'
import { TEST_SECRET, uniqueEmail } from './support/harness.js'
import { TEST_REDIS_URL, type TestDatabase, createTestDatabase, serviceAvailable } from './support/services.js'
import { type SseStream, changeOf, openStream } from './support/sse.js'

async function call(base: string, method: string, path: string, body?: unknown, token?: string) {
  const headers: Record<string, string> = {}
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (token) headers.authorization = `Bearer ${token}`
  const res = await fetch(base + path, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) })
  return { status: res.status, json: (await res.json().catch(() => undefined)) as Record<string, unknown> }
}

const baseOf = (server: RunningServer) => `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([
      promise,
      new Promise<never>(
        (_r, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)),
      ),
    ])
  } finally {
    clearTimeout(timer)
  }
}

const buses = [
  { name: 'PostgreSQL LISTEN/NOTIFY', driver: 'postgresql', needs: ['postgresql'] as const, env: {} },
  {
    name: 'Redis pub/sub',
    driver: 'redis',
    needs: ['postgresql', 'redis'] as const,
    env: { REDIS_URL: TEST_REDIS_URL },
  },
]

for (const bus of buses) {
  if (!bus.needs.every((service) => serviceAvailable(service))) continue
  describe(`live updates across two instances (${bus.name})`, () => {
    let db: TestDatabase
    let a: RunningServer
    let b: RunningServer
    const streams: SseStream[] = []
    before(async () => {
      db = await createTestDatabase()
      const config = parseConfig({
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'silent',
        DATABASE_URL: db.url,
        DATABASE_POOL_SIZE: '4',
        ACCESS_TOKEN_SECRET: TEST_SECRET,
        ...bus.env,
      })
      ;[a, b] = await Promise.all([startServer(config), startServer(config)])
    })
    after(async () => {
      streams.forEach((s) => s.close())
      await Promise.all([a?.close(), b?.close()])
      await db.drop()
    })
    const stream = async (server: RunningServer, token: string) => {
      const s = await openStream(baseOf(server), { token })
      streams.push(s)
      assert.equal(s.status, 200)
      return s
    }
    const account = async () => {
      const reg = await call(baseOf(a), 'POST', '/create-account', {
        fullName: 'Ada',
        email: uniqueEmail(),
        password: 'correct horse battery',
      })
      assert.equal(reg.status, 200)
      return { token: reg.json.accessToken as string, email: (reg.json.user as { email: string }).email }
    }

    it(`uses ${bus.driver} as the bus`, () => {
      assert.deepEqual([a.changeBus, b.changeBus], [bus.driver, bus.driver])
    })

    it('sends a write made through A to a stream held on B, and the other way round', async () => {
      const { token } = await account()
      const onB = await stream(b, token)
      const onA = await stream(a, token)
      const added = await call(baseOf(a), 'POST', '/add-note', { title: 'from A', content: 'c' }, token)
      const noteId = (added.json.note as { _id: string })._id
      await within(onB.waitForEvents(1), 5000, 'the event on B')
      assert.equal(changeOf(onB.events[0]!).noteId, noteId)
      const edited = await call(baseOf(b), 'PUT', `/edit-note/${noteId}`, { title: 'from B' }, token)
      assert.equal(edited.status, 200)
      await within(onA.waitForEvents(2), 5000, 'the edit on A')
      assert.equal((changeOf(onA.events.at(-1)!).note as { title: string }).title, 'from B')
    })

    it('closes the stream on B within 1 s of a logout through A', async () => {
      const { token } = await account()
      const onB = await stream(b, token)
      // Used on B, so B keeps the session in its cache layer: the check must read past it.
      assert.equal((await call(baseOf(b), 'GET', '/get-user', undefined, token)).status, 200)
      const out = await call(baseOf(a), 'POST', '/logout', undefined, token)
      assert.equal(out.status, 200)
      assert.equal(await within(onB.ended, 1000, 'the end of the stream on B'), 'end')
    })
  })
}
