// Registration limits, on both stores, through inject and a real socket: accounts registered
// per client address (REGISTRATIONS_PER_CLIENT in REGISTRATION_WINDOW_SECONDS, 429 with
// Retry-After past it, exact under concurrency, shared through Redis, off with
// BRUTE_FORCE_PROTECTION=false) and closed registration (REGISTRATION=closed, 403).
import assert from 'node:assert/strict'
import { randomInt } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { type Config, defaultConfig } from '../src/config.js'
import { REGISTRATION_CLOSED } from '../src/errors.js'
import { REGISTRATIONS_THROTTLED } from '../src/services/brute-force.js'
import { defaultPasswordHasher } from '../src/services/passwords.js'
import { type RedisLimiters, createRedisLimiters } from '../src/services/redis-limiters.js'
import { makeUser } from './support/store-contract.js'
import { type Client, type Harness, MODES, addNote, startHarness, targets, uniqueEmail } from './support/harness.js'
import { TEST_REDIS_URL, serviceAvailable } from './support/services.js'
import { type TestStore, openTestStore } from './support/stores.js'

const LIMIT = 3
const limited = (overrides: Partial<Config['bruteForce']> = {}): Partial<Config> => ({
  trustProxy: true,
  bruteForce: { ...defaultConfig.bruteForce, registrationsPerClient: LIMIT, ...overrides },
})

/** A client address of its own (X-Forwarded-For, TRUST_PROXY=true), so tests never share one. */
const newAddress = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`

function registerFrom(client: Client, address: string, email = uniqueEmail()) {
  return client.request('POST', '/create-account', {
    body: { fullName: 'Limited', email, password: 'correct horse battery staple' },
    headers: { 'x-forwarded-for': address },
  })
}

const created = (r: { status: number; json: unknown }) =>
  r.status === 200 && (r.json as { error: boolean }).error === false

for (const { mode, storeKind } of targets()) {
  describe(`registrations per client address (${mode}, ${storeKind})`, () => {
    let h: Harness
    before(async () => {
      h = await startHarness(mode, { storeKind, config: limited() })
    })
    after(async () => h.close())

    it('answers 429 with Retry-After past the limit; duplicates do not count, other addresses are not affected', async () => {
      const address = newAddress()
      const first = await registerFrom(h.client, address)
      assert.ok(created(first))
      const email = (first.json as { user: { email: string } }).user.email
      for (let i = 0; i < 5; i++) {
        assert.deepEqual((await registerFrom(h.client, address, email)).json, {
          error: true,
          message: 'User already exists',
        })
      }
      for (let i = 1; i < LIMIT; i++) assert.ok(created(await registerFrom(h.client, address)), `registration ${i + 1}`)
      const refused = await registerFrom(h.client, address)
      assert.equal(refused.status, 429)
      assert.deepEqual(refused.json, { error: true, message: REGISTRATIONS_THROTTLED })
      const retryAfter = Number(refused.headers['retry-after'])
      assert.ok(
        retryAfter >= 1 && retryAfter <= defaultConfig.bruteForce.registrationWindowSeconds,
        `Retry-After ${retryAfter}`,
      )
      assert.ok(created(await registerFrom(h.client, newAddress())), 'another address registers')
    })

    it('lets exactly the limit through when registrations from one address arrive at once', async () => {
      const address = newAddress()
      const replies = await Promise.all(Array.from({ length: 10 }, () => registerFrom(h.client, address)))
      assert.equal(replies.filter(created).length, LIMIT)
      assert.deepEqual(new Set(replies.filter((r) => !created(r)).map((r) => r.status)), new Set([429]))
    })
  })

  describe(`closed registration (${mode}, ${storeKind})`, () => {
    let h: Harness
    let store: TestStore
    before(async () => {
      store = await openTestStore(storeKind)
      h = await startHarness(mode, { store, config: { registration: 'closed' } })
    })
    after(async () => h.close())

    it('answers 403 to every registration, whatever its body; imported accounts log in and write notes', async () => {
      const closed = { error: true, message: REGISTRATION_CLOSED }
      const ok = await h.client.request('POST', '/create-account', {
        body: { fullName: 'N', email: uniqueEmail(), password: 'pw' },
      })
      assert.deepEqual([ok.status, ok.json], [403, closed])
      assert.match(REGISTRATION_CLOSED, /^Registration is closed: /)
      const malformed = await h.client.request('POST', '/create-account', {
        raw: '{"fullName":',
        headers: { 'content-type': 'application/json' },
      })
      assert.deepEqual([malformed.status, malformed.json], [403, closed])
      const missing = await h.client.request('POST', '/create-account', { body: {} })
      assert.deepEqual([missing.status, missing.json], [403, closed])

      const user = makeUser({ passwordHash: await defaultPasswordHasher.hash('imported password') })
      assert.deepEqual(await store.importUsers([user]), ['inserted'])
      const login = await h.client.request('POST', '/login', {
        body: { email: user.email, password: 'imported password' },
      })
      assert.equal(login.status, 200)
      await addNote(h.client, (login.json as { accessToken: string }).accessToken, { title: 't', content: 'c' })
    })
  })
}

describe('registrations per client address, window and switch', () => {
  for (const mode of MODES) {
    it(`counts again once the window has passed (${mode})`, async () => {
      const h = await startHarness(mode, {
        config: limited({ registrationsPerClient: 1, registrationWindowSeconds: 1 }),
      })
      try {
        const address = newAddress()
        assert.ok(created(await registerFrom(h.client, address)))
        const refused = await registerFrom(h.client, address)
        assert.deepEqual([refused.status, refused.headers['retry-after']], [429, '1'])
        await new Promise((resolve) => setTimeout(resolve, 1100))
        assert.ok(created(await registerFrom(h.client, address)))
      } finally {
        await h.close()
      }
    })

    it(`never limits registrations with BRUTE_FORCE_PROTECTION=false (${mode})`, async () => {
      const h = await startHarness(mode, { config: limited({ enabled: false, registrationsPerClient: 1 }) })
      try {
        const address = newAddress()
        for (let i = 0; i < 4; i++) assert.ok(created(await registerFrom(h.client, address)), `registration ${i + 1}`)
      } finally {
        await h.close()
      }
    })
  }
})

if (serviceAvailable('redis')) {
  describe('registrations per client address in Redis', () => {
    const limiters: RedisLimiters[] = []
    after(async () => Promise.all(limiters.map((l) => l.close())))

    it('counts the registrations of one address on two instances against one limit', async () => {
      const log = { info: () => {}, warn: () => {} }
      const [one, two] = [createRedisLimiters(TEST_REDIS_URL), createRedisLimiters(TEST_REDIS_URL)] as [
        RedisLimiters,
        RedisLimiters,
      ]
      limiters.push(one, two)
      await Promise.all([one.start(log), two.start(log)])
      const a = await startHarness('http', { config: limited(), limiterFactory: one.factory })
      const b = await startHarness('http', { store: a.store, config: limited(), limiterFactory: two.factory })
      try {
        // A fresh address per run: Redis keeps its counters between runs, for the window.
        const address = newAddress()
        const replies = []
        for (let i = 0; i < LIMIT + 2; i++) replies.push(await registerFrom(i % 2 ? b.client : a.client, address))
        assert.deepEqual(
          replies.map((r) => r.status),
          [200, 200, 200, 429, 429],
        )
        assert.deepEqual(replies[4]?.json, { error: true, message: REGISTRATIONS_THROTTLED })
      } finally {
        await b.app.close()
        await a.close()
      }
    })
  })
}
