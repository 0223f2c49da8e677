// What the metrics cost a request: GET /get-all-notes (20 notes) through inject, with metrics on
// and off, in alternating rounds so drift in a shared machine hits both alike. Also the time of
// one /metrics scrape and the size of /openapi.json and /docs. Run:
//   node --import tsx bench/metrics-overhead.ts [requestsPerRound=2000] [rounds=4]
import { performance } from 'node:perf_hooks'
import { buildApp } from '../src/app.js'
import { defaultConfig } from '../src/config.js'
import { openSqliteStore } from '../src/store/sqlite/index.js'

const perRound = Number(process.argv[2] ?? 2000)
const rounds = Number(process.argv[3] ?? 4)
const secret = 'bench-secret-that-is-at-least-32-bytes-long!'

async function setup(metricsEnabled: boolean) {
  const store = openSqliteStore({ dataDir: ':memory:' })
  const config = { ...defaultConfig, dataDir: ':memory:', metrics: { ...defaultConfig.metrics, enabled: metricsEnabled } }
  const app = await buildApp({ config, store, secret })
  await app.ready()
  const reg = await app.inject({ method: 'POST', url: '/create-account', payload: { fullName: 'B', email: `b${Date.now()}@x.org`, password: 'pw' } })
  const token = reg.json<{ accessToken: string }>().accessToken
  const authorization = `Bearer ${token}`
  for (let i = 0; i < 20; i++) {
    await app.inject({ method: 'POST', url: '/add-note', headers: { authorization }, payload: { title: `t${i}`, content: 'c'.repeat(200) } })
  }
  return { app, store, authorization }
}

const on = await setup(true)
const off = await setup(false)
const totals = { on: 0, off: 0 }
for (let r = 0; r < rounds; r++) {
  // Alternate which goes first, so neither always inherits the other's garbage.
  const order = r % 2 === 0 ? ([['off', off], ['on', on]] as const) : ([['on', on], ['off', off]] as const)
  for (const [name, s] of order) {
    const start = performance.now()
    for (let i = 0; i < perRound; i++) {
      await s.app.inject({ method: 'GET', url: '/get-all-notes', headers: { authorization: s.authorization } })
    }
    totals[name] += performance.now() - start
  }
}
const n = perRound * rounds
const us = (ms: number) => ((ms * 1000) / n).toFixed(1)
console.log(`GET /get-all-notes, ${n} requests each: metrics off ${us(totals.off)} µs/request, on ${us(totals.on)} µs/request`)

const scrapes = 50
let start = performance.now()
let size = 0
for (let i = 0; i < scrapes; i++) size = (await on.app.inject({ method: 'GET', url: '/metrics' })).body.length
console.log(`GET /metrics: ${((performance.now() - start) / scrapes).toFixed(2)} ms per scrape, ${size} bytes`)
start = performance.now()
const doc = await on.app.inject({ method: 'GET', url: '/openapi.json' })
const docs = await on.app.inject({ method: 'GET', url: '/docs' })
console.log(`/openapi.json ${doc.body.length} bytes, /docs ${docs.body.length} bytes (first render of both: ${(performance.now() - start).toFixed(1)} ms)`)
for (const s of [on, off]) {
  await s.app.close()
  await s.store.close()
}
