// Brute-force limits hold under any concurrency across processes (docs/security.md, "Brute-force
// limits"): the bursts of test/security/password-bursts.test.ts against real servers, at the
// default limits and argon2id cost, where the counters are not in the answering process:
// `serve --workers 2` on SQLite (counters in the primary) and two instances on PostgreSQL that
// share Redis, each burst spread over both instances.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe } from 'node:test'
import { defaultConfig } from '../../src/config.js'
import { type ChildServer, startChild } from '../support/child-server.js'
import { type Client, urlClient } from '../support/harness.js'
import { burstTests } from '../support/scenarios/password-bursts.js'
import { TEST_REDIS_URL, type TestDatabase, createTestDatabase, serviceAvailable } from '../support/services.js'

const limits = defaultConfig.bruteForce

/** Sends each request to the next server in turn. */
function roundRobin(servers: ChildServer[]): Client {
  const clients = servers.map((s) => urlClient(s.base))
  let next = 0
  return {
    mode: 'http',
    request: (method, path, options) => clients[next++ % clients.length]!.request(method, path, options),
  }
}

describe('parallel password bursts: serve --workers 2 (SQLite, counters in the primary)', { timeout: 180_000 }, () => {
  let server: ChildServer
  const dataDir = mkdtempSync(join(tmpdir(), 'notes-bursts-'))
  before(async () => {
    server = await startChild({ dataDir, env: { WORKERS: '2', TRUST_PROXY: 'true' } })
  })
  after(async () => {
    await server.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })
  burstTests(() => urlClient(server.base), limits)
})

if (serviceAvailable('postgresql') && serviceAvailable('redis')) {
  describe('parallel password bursts: two instances on PostgreSQL sharing Redis', { timeout: 180_000 }, () => {
    const servers: ChildServer[] = []
    let db: TestDatabase
    const dataDir = mkdtempSync(join(tmpdir(), 'notes-bursts-pg-'))
    before(async () => {
      db = await createTestDatabase()
      const env = { DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL, TRUST_PROXY: 'true' }
      // One after the other: the first applies the migrations.
      servers.push(await startChild({ dataDir, env }))
      servers.push(await startChild({ dataDir, env }))
    })
    after(async () => {
      await Promise.all(servers.map((s) => s.stop()))
      await db.drop()
      rmSync(dataDir, { recursive: true, force: true })
    })
    burstTests(() => roundRobin(servers), limits)
  })
}
