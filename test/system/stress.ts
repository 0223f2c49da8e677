// The long versions of the attack tests: `npm run test:stress`. Runs each scenario at
// full size, prints a summary table (cases tried, failures, figures) and exits non-zero when
// anything failed. Takes about 5-8 minutes on 2 cores. Scale with STRESS_SCALE (e.g. 0.2).
import { runCrashScenario } from '../support/scenarios/crash.js'
import { fuzz, injectSender, socketSender } from '../support/scenarios/fuzz.js'
import { runLoad } from '../support/scenarios/load.js'
import {
  EVERYTHING_PATTERN,
  ATTACK_PATTERNS,
  measureLoopDelay,
  openIdleConnections,
  seedNotes,
  startBystander,
  trickle,
} from '../support/scenarios/no-hang.js'
import { defaultConfig } from '../../src/config.js'
import { addNote, register, startHarness, uniqueEmail } from '../support/harness.js'
import { storesUnderTest } from '../support/stores.js'

const scale = Number(process.env.STRESS_SCALE ?? '1')
const n = (full: number, min = 1) => Math.max(min, Math.round(full * scale))

interface Row {
  scenario: string
  cases: number
  failures: number
  figures: string
}
const rows: Row[] = []
const record = (row: Row) => {
  rows.push(row)
  process.stderr.write(`done: ${row.scenario}: ${row.cases} cases, ${row.failures} failures; ${row.figures}\n`)
}

async function crash() {
  for (const store of storesUnderTest()) {
    const kills = n(20, 3)
    const r = await runCrashScenario({ store, kills, writers: 4, minRunMs: 200, maxRunMs: 2000 })
    r.problems.slice(0, 5).forEach((p) => process.stderr.write(`  crash problem: ${p}\n`))
    record({
      scenario: `SIGKILL under write load (${store.name})`,
      cases: r.kills,
      failures: r.problems.length,
      figures: `${r.acknowledgedWrites} acknowledged writes, ${r.interruptedWrites} cut by a kill, ${r.notesVerified} notes re-read`,
    })
  }
}

async function fuzzing() {
  for (const mode of ['inject', 'http'] as const) {
    const h = await startHarness(mode)
    const a = await register(h.client)
    const target = { token: a.token, noteId: (await addNote(h.client, a.token, { title: 't', content: 'c' }))._id }
    const port = mode === 'http' ? (h.app.server.address() as { port: number }).port : 0
    const socket = mode === 'http' ? socketSender(`http://127.0.0.1:${port}`) : undefined
    const started = performance.now()
    const r = await fuzz(target, socket ?? injectSender(h.app), mode === 'inject' ? n(10_000) : n(2_000))
    socket?.close()
    const health = await h.client.request('GET', '/get-all-notes', { token: a.token })
    await h.close()
    if (r.report) process.stderr.write(`  fuzz failure: ${r.report}\n`)
    const statuses = Object.entries(r.statuses)
      .map(([s, c]) => `${s}:${c}`)
      .join(' ')
    record({
      scenario: `fuzzing every endpoint (${mode})`,
      cases: r.cases,
      failures: r.failures + (r.prototypePolluted ? 1 : 0) + (health.status === 200 ? 0 : 1),
      figures: `${Math.round(r.cases / ((performance.now() - started) / 1000))}/s; statuses ${statuses}`,
    })
  }
}

async function noHang() {
  const h = await startHarness('http', { config: { requestTimeoutMs: 1000, connectionTimeoutMs: 10_000 } })
  const port = (h.app.server.address() as { port: number }).port
  const base = `http://127.0.0.1:${port}`
  const a = await register(h.client)
  const b = await register(h.client)
  await seedNotes(h.store, a.userId, 10_000)
  const search = (pattern: string) =>
    fetch(`${base}/search-notes?query=${encodeURIComponent(pattern)}`, {
      headers: { authorization: `Bearer ${a.token}` },
    }).then(async (r) => {
      await r.arrayBuffer()
      return r.status
    })
  const others = startBystander(base, b.token)
  const rounds = n(5)
  const { result: statuses, delay } = await measureLoopDelay(async () => {
    const seen: number[] = []
    for (let i = 0; i < rounds; i++) for (const p of ATTACK_PATTERNS) seen.push(await search(p))
    return seen
  })
  const served = await others.stop()
  const bad = statuses.filter((s) => s !== 200 && s !== 400).length
  record({
    scenario: 'attack patterns over 10 000 notes',
    cases: statuses.length,
    failures: bad + served.failures + (delay.maxMs < 100 ? 0 : 1),
    figures: `loop delay max ${delay.maxMs.toFixed(0)} ms, p99 ${delay.p99Ms.toFixed(0)} ms; bystander ${served.requests} requests, slowest ${served.maxMs.toFixed(0)} ms`,
  })
  // Not an attack pattern: the answer is the whole list (about 4.6 MB), as large as get-all-notes'.
  const whole = await measureLoopDelay(() => search(EVERYTHING_PATTERN))
  const list = await measureLoopDelay(() =>
    fetch(`${base}/get-all-notes`, { headers: { authorization: `Bearer ${a.token}` } }).then((r) => r.arrayBuffer()),
  )
  record({
    scenario: 'whole-list answers, 10 000 notes (info)',
    cases: 2,
    failures: 0,
    figures: `loop delay: search matching all ${whole.delay.maxMs.toFixed(0)} ms, get-all-notes ${list.delay.maxMs.toFixed(0)} ms (known limit, docs/security.md)`,
  })
  const slow = await measureLoopDelay(() =>
    Promise.all(
      Array.from({ length: n(50) }, (_, i) =>
        trickle(
          port,
          i % 2
            ? 'GET /get-user HTTP/1.1\r\nHost: x\r\n'.padEnd(400, 'x')
            : 'POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 900\r\n\r\n'.padEnd(
                900,
                ' ',
              ),
          20,
        ),
      ),
    ),
  )
  const late = slow.result.filter((s) => s.closedAfterMs > 4000 || !s.answer.startsWith('HTTP/1.1 408')).length
  record({
    scenario: 'byte-at-a-time clients',
    cases: slow.result.length,
    failures: late + (slow.delay.maxMs < 100 ? 0 : 1),
    figures: `cut off after ${Math.round(Math.min(...slow.result.map((s) => s.closedAfterMs)))}-${Math.round(Math.max(...slow.result.map((s) => s.closedAfterMs)))} ms; loop delay max ${slow.delay.maxMs.toFixed(0)} ms`,
  })
  const flood = await openIdleConnections(port, n(3000))
  const during = await h.client.request('GET', '/get-all-notes', { token: b.token })
  const times = await Promise.all(flood.map((c) => c.closed))
  record({
    scenario: 'flood of idle connections',
    cases: flood.length,
    failures: (during.status === 200 ? 0 : 1) + times.filter((t) => t > 10_000).length,
    figures: `served during the flood; each closed by the server within ${Math.round(Math.max(...times))} ms of connecting`,
  })
  await h.close()
}

async function load() {
  for (const store of storesUnderTest()) {
    const r = await runLoad({ store, connections: 64, durationMs: n(60_000, 5000), warmupShare: 0.25 })
    r.errorSamples.forEach((e) => process.stderr.write(`  load error: ${e}\n`))
    record({
      scenario: `mixed load, 64 connections (${store.name})`,
      cases: r.requests,
      failures: r.errors + r.timeouts + (r.rssGrowthMb < 48 ? 0 : 1) + (r.fdsAfter <= r.fdsBefore + 2 ? 0 : 1),
      figures: `${r.requestsPerSecond} req/s, p99 ${r.p99Ms} ms; RSS ${r.rssAfterWarmupMb} -> ${r.rssEndMb} MB (max ${r.rssMaxMb}, troughs +${r.rssGrowthMb}); fds ${r.fdsBefore} -> ${r.fdsAfter}`,
    })
  }
}

/** Real email with a wrong password vs an unknown email: medians and spread of the login time. */
async function enumerationTiming() {
  const h = await startHarness('http', {
    config: {
      passwordHashing: defaultConfig.passwordHashing,
      bruteForce: {
        enabled: false,
        windowSeconds: 1,
        pairLimit: 1,
        emailLimit: 1,
        ipLimit: 1,
        sessionLimit: 1,
        registrationIpLimit: 1,
        registrationsPerClient: 1,
        registrationWindowSeconds: 1,
      },
    },
  })
  const a = await register(h.client)
  const times: Record<'real' | 'unknown', number[]> = { real: [], unknown: [] }
  const bodies = new Set<string>()
  for (let i = 0; i < n(60, 10); i++) {
    for (const kind of i % 2 ? (['real', 'unknown'] as const) : (['unknown', 'real'] as const)) {
      const t = performance.now()
      const res = await h.client.request('POST', '/login', {
        body: { email: kind === 'real' ? a.email : uniqueEmail('nobody'), password: 'wrong password' },
      })
      times[kind].push(performance.now() - t)
      bodies.add(`${res.status} ${res.text}`)
    }
  }
  await h.close()
  const q = (xs: number[], p: number) => [...xs].sort((x, y) => x - y)[Math.floor((xs.length - 1) * p)]!
  const diff = q(times.real, 0.5) - q(times.unknown, 0.5)
  const noise = Math.max(q(times.real, 0.75) - q(times.real, 0.25), q(times.unknown, 0.75) - q(times.unknown, 0.25))
  record({
    scenario: 'login: real vs unknown email',
    cases: times.real.length + times.unknown.length,
    failures: (bodies.size === 1 ? 0 : 1) + (Math.abs(diff) <= Math.max(noise, 2) ? 0 : 1),
    figures: `median real ${q(times.real, 0.5).toFixed(1)} ms, unknown ${q(times.unknown, 0.5).toFixed(1)} ms, difference ${diff.toFixed(1)} ms, noise (IQR) ${noise.toFixed(1)} ms; ${bodies.size} distinct body`,
  })
}

function printTable() {
  const header: Row = { scenario: 'scenario', cases: 0, failures: 0, figures: 'figures' }
  const cells = [header, ...rows].map((r, i) => [
    r.scenario,
    i ? String(r.cases) : 'cases',
    i ? String(r.failures) : 'failures',
    r.figures,
  ])
  const widths = [0, 1, 2].map((c) => Math.max(...cells.map((r) => r[c]!.length)))
  const line = (r: string[]) =>
    `| ${r[0]!.padEnd(widths[0]!)} | ${r[1]!.padStart(widths[1]!)} | ${r[2]!.padStart(widths[2]!)} | ${r[3]} |`
  console.log(line(cells[0]!))
  console.log(`|${'-'.repeat(widths[0]! + 2)}|${'-'.repeat(widths[1]! + 2)}|${'-'.repeat(widths[2]! + 2)}|---|`)
  cells.slice(1).forEach((r) => console.log(line(r)))
  const failed = rows.filter((r) => r.failures > 0).length
  console.log(`\nstress: ${rows.length - failed} passed, ${failed} failed`)
  if (failed > 0) process.exitCode = 1
}

const only = process.argv.slice(2)
const all: Record<string, () => Promise<void>> = {
  crash,
  fuzz: fuzzing,
  'no-hang': noHang,
  load,
  timing: enumerationTiming,
}
for (const [name, run] of Object.entries(all)) {
  if (only.length === 0 || only.includes(name)) await run()
}
printTable()
