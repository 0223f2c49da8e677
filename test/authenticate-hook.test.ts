// The authenticate hook (src/plugins/auth.ts) is a callback hook: its account lookup's outcome
// reaches Fastify through `done` or a reply. A lookup that fails must still answer in the
// contract's shape (503 for a lost store, 500 otherwise), never hang, and a gone account gets the
// bare 401; through inject and through a real listening server.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { openSqliteStore } from '../src/store/sqlite/index.js'
import { StoreUnavailableError } from '../src/store/types.js'
import { type Account, type Harness, MODES, register, startHarness } from './support/harness.js'
import { SERVICE_LIMITS, type TestStore } from './support/stores.js'

/**
 * The real store, but the hook's lookups (findSession for tokens that name a session,
 * findUserById for those that do not) answer as `behaviour` says for the account ids in it.
 */
function storeWithFailingLookups(
  real: TestStore,
  behaviour: Map<string, 'unavailable' | 'broken' | 'gone'>,
): TestStore {
  const as = async <T>(id: string | undefined, read: () => Promise<T | undefined>): Promise<T | undefined> => {
    const how = id === undefined ? undefined : behaviour.get(id)
    if (how === 'unavailable') throw new StoreUnavailableError('connection refused')
    if (how === 'broken') throw new Error('disk on fire')
    if (how === 'gone') return undefined
    return read()
  }
  return {
    ...real,
    findUserById: (id) => as(id, () => real.findUserById(id)),
    findSession: async (sessionId) => {
      const found = await real.findSession(sessionId)
      return as(found?.user._id, async () => found)
    },
  }
}

for (const mode of MODES) {
  describe(`authenticate hook when the account lookup fails (${mode})`, () => {
    const behaviour = new Map<string, 'unavailable' | 'broken' | 'gone'>()
    let h: Harness
    let a: Account
    before(async () => {
      h = await startHarness(mode, {
        store: storeWithFailingLookups(openSqliteStore({ dataDir: ':memory:', limits: SERVICE_LIMITS }), behaviour),
      })
      a = await register(h.client)
    })
    after(async () => h.close())

    it('answers as usual while the lookup works', async () => {
      behaviour.clear()
      const res = await h.client.request('GET', '/get-user', { token: a.token })
      assert.equal(res.status, 200)
      assert.equal((res.json as { user: { _id: string } }).user._id, a.userId)
    })

    it("answers 503 in the contract's shape when the store is unavailable", async () => {
      behaviour.set(a.userId, 'unavailable')
      for (const [method, path] of [
        ['GET', '/get-user'],
        ['GET', '/search-notes?query=x'],
      ] as const) {
        const res = await h.client.request(method, path, { token: a.token })
        assert.equal(res.status, 503, `${method} ${path}`)
        assert.equal(res.text, '{"error":true,"message":"Service Unavailable: the database cannot be reached"}')
      }
    })

    it("answers 500 in the contract's shape when the lookup throws anything else", async () => {
      behaviour.set(a.userId, 'broken')
      const res = await h.client.request('GET', '/get-user', { token: a.token })
      assert.equal(res.status, 500)
      assert.deepEqual(res.json, { error: true, message: 'Internal Server Error' })
    })

    it('answers the bare 401 when the account is gone, and never runs the handler', async () => {
      behaviour.set(a.userId, 'gone')
      const res = await h.client.request('POST', '/add-note', { token: a.token, body: { title: 't', content: 'c' } })
      assert.equal(res.status, 401)
      assert.equal(res.text, 'Unauthorized')
      behaviour.clear()
      const listed = await h.client.request('GET', '/get-all-notes', { token: a.token })
      assert.deepEqual((listed.json as { notes: unknown[] }).notes, [])
    })
  })
}
