// Two server instances on one PostgreSQL database (and one Redis), as a user would run them:
// a token issued by one works on the other, a note written through one is read through the
// other, concurrent registrations of one email make one account, and login failures spread
// over both instances trip the shared limit; the trash, history and versions are one for both.
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { parseConfig } from '../src/config.js'
import { type RunningServer, startServer } from '../src/server.js'
import { TEST_SECRET, uniqueEmail } from './support/harness.js'
import { TEST_REDIS_URL, type TestDatabase, createTestDatabase, serviceAvailable } from './support/services.js'

const PAIR_LIMIT = 4

async function call(base: string, method: string, path: string, body?: unknown, token?: string) {
  const headers: Record<string, string> = {}
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (token) headers.authorization = `Bearer ${token}`
  const res = await fetch(base + path, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) })
  const text = await res.text()
  return { status: res.status, json: JSON.parse(text) as Record<string, unknown> }
}

if (serviceAvailable('postgresql') && serviceAvailable('redis')) {
  describe('two instances on one PostgreSQL database and one Redis', () => {
    let db: TestDatabase
    let a: RunningServer
    let b: RunningServer
    let baseA: string
    let baseB: string
    before(async () => {
      db = await createTestDatabase()
      const config = parseConfig({
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'silent',
        DATABASE_URL: db.url,
        DATABASE_POOL_SIZE: '4',
        ACCESS_TOKEN_SECRET: TEST_SECRET,
        REDIS_URL: TEST_REDIS_URL,
        LOGIN_FAILURES_PER_ACCOUNT_AND_CLIENT: String(PAIR_LIMIT),
        // Every test that counts in this Redis database logs in from 127.0.0.1, and its counters outlive the run:
        // only the pair limit under test may answer 429 here.
        LOGIN_FAILURES_PER_CLIENT: '1000000',
      })
      // Started together, as a deployment would: the migration lock makes this safe.
      ;[a, b] = await Promise.all([startServer(config), startServer(config)])
      baseA = `http://127.0.0.1:${(a.app.server.address() as AddressInfo).port}`
      baseB = `http://127.0.0.1:${(b.app.server.address() as AddressInfo).port}`
    })
    after(async () => {
      await Promise.all([a?.close(), b?.close()])
      await db.drop()
    })

    it('accepts on one instance the token issued by the other, and shares notes', async () => {
      const email = uniqueEmail()
      const reg = await call(baseA, 'POST', '/create-account', { fullName: 'Ada', email, password: 'pw' })
      assert.equal(reg.status, 200)
      const token = reg.json.accessToken as string
      const me = await call(baseB, 'GET', '/get-user', undefined, token)
      assert.equal(me.status, 200)
      assert.equal((me.json.user as { email: string }).email, email)

      const added = await call(baseA, 'POST', '/add-note', { title: 'from A', content: 'c' }, token)
      const noteId = (added.json.note as { _id: string })._id
      const listed = await call(baseB, 'GET', '/get-all-notes', undefined, token)
      assert.deepEqual(
        (listed.json.notes as Array<{ _id: string }>).map((n) => n._id),
        [noteId],
      )
      const edited = await call(baseB, 'PUT', `/edit-note/${noteId}`, { title: 'edited on B' }, token)
      assert.equal(edited.status, 200)
      const search = await call(baseA, 'GET', '/search-notes?query=EDITED', undefined, token)
      assert.deepEqual(
        (search.json.notes as Array<{ title: string }>).map((n) => n.title),
        ['edited on B'],
      )
    })

    it('shares the trash and the history, and an If-Match taken on one instance guards the other', async () => {
      const reg = await call(baseA, 'POST', '/create-account', {
        fullName: 'Bea',
        email: uniqueEmail(),
        password: 'pw',
      })
      const token = reg.json.accessToken as string
      const added = await call(baseA, 'POST', '/add-note', { title: 'kept', content: 'one' }, token)
      const note = added.json.note as { _id: string; updatedOn: string }
      // Listed on both, so both instances cache the listing before the changes below.
      for (const base of [baseA, baseB])
        assert.equal(((await call(base, 'GET', '/get-all-notes', undefined, token)).json.notes as unknown[]).length, 1)
      const edited = await call(baseB, 'PUT', `/edit-note/${note._id}`, { content: 'two' }, token)
      assert.equal(edited.status, 200)
      const stale = await fetch(`${baseA}/edit-note/${note._id}`, {
        method: 'PUT',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'if-match': `"${note.updatedOn}"`,
        },
        body: JSON.stringify({ content: 'stale' }),
      })
      assert.equal(stale.status, 412)
      const history = await call(baseA, 'GET', `/get-note-history/${note._id}`, undefined, token)
      assert.deepEqual(
        (history.json.revisions as Array<{ content: string }>).map((r) => r.content),
        ['one'],
      )
      assert.equal((await call(baseA, 'DELETE', `/delete-note/${note._id}`, undefined, token)).status, 200)
      assert.deepEqual((await call(baseB, 'GET', '/get-all-notes', undefined, token)).json.notes, [])
      assert.equal(((await call(baseB, 'GET', '/get-trash', undefined, token)).json.notes as unknown[]).length, 1)
      assert.equal((await call(baseB, 'PUT', `/restore-note/${note._id}`, undefined, token)).status, 200)
      const back = (await call(baseA, 'GET', '/get-all-notes', undefined, token)).json.notes as Array<{
        content: string
      }>
      assert.deepEqual(
        back.map((n) => n.content),
        ['two'],
      )
    })

    it('makes one account when both instances register one email at once', async () => {
      const email = uniqueEmail()
      const attempts = await Promise.all(
        [baseA, baseB, baseA, baseB].map((base, i) =>
          call(base, 'POST', '/create-account', {
            fullName: `N${i}`,
            email: i % 2 ? email.toUpperCase() : email,
            password: 'pw',
          }),
        ),
      )
      assert.deepEqual(
        attempts.map((r) => r.status),
        [200, 200, 200, 200],
      )
      assert.equal(attempts.filter((r) => r.json.error === false).length, 1)
      assert.equal(attempts.filter((r) => r.json.message === 'User already exists').length, 3)
    })

    it('counts login failures on both instances against one limit (REDIS_URL)', async () => {
      const email = uniqueEmail()
      await call(baseA, 'POST', '/create-account', { fullName: 'Bob', email, password: 'right' })
      for (let i = 0; i < PAIR_LIMIT; i++) {
        const res = await call(i % 2 ? baseB : baseA, 'POST', '/login', { email, password: 'wrong' })
        assert.equal(res.status, 400, `failure ${i + 1}`)
      }
      // Each instance saw only half the failures; the shared counters stop both.
      for (const base of [baseA, baseB]) {
        const res = await call(base, 'POST', '/login', { email, password: 'right' })
        assert.equal(res.status, 429)
      }
    })
  })
}
