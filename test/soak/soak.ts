// The soak test (`npm run test:soak`, docs/testing.md): many accounts, each with several devices sending mixed note
// traffic and holding streams, among which sessions end every way there is, a process is killed now and then, and
// busy loops take CPU from everything. It checks the invariants in report.ts and prints a report with the seed that
// replays the choices. Not named *.test.ts: neither suite runs it; CI runs it after the system suite.
import assert from 'node:assert/strict'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { describe, it } from 'node:test'
import { serviceAvailable } from '../support/services.js'
import { checkAccounts, checkStored, checkStreamEnds, streamEndBoundMs } from './checks.js'
import { type Deployment, type StoreName, busyLoops, postgresPair, sqliteWorkers } from './deployments.js'
import type { SoakContext } from './device.js'
import { Recorder } from './http.js'
import { readStoredAccounts } from './recount.js'
import { formatReport } from './report.js'
import { type SoakSettings, replayCommand, soakSettings } from './settings.js'
import { type Population, runChaos, runSlot } from './traffic.js'

const settings = soakSettings()
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function soak(deployment: Deployment, s: SoakSettings): Promise<{ recorder: Recorder; report: string }> {
  const started = performance.now()
  const recorder = new Recorder()
  const loop = monitorEventLoopDelay({ resolution: 10 })
  loop.enable()
  const busy = busyLoops(s.busy)
  let trafficOver = false
  let streamsOver = false
  const ctx: SoakContext = {
    deployment,
    recorder,
    trafficOver: () => trafficOver,
    streamsOver: () => streamsOver,
    streams: [],
  }
  recorder.probe = (at) => recorder.probeBases(at, deployment.bases())
  const population: Population = { accounts: [], devices: [], streamTasks: [] }
  const log = (line: string) => console.log(`  [${((performance.now() - started) / 1000).toFixed(0)} s] ${line}`)
  let phase = 'traffic'
  const progress = setInterval(() => {
    const top = [...recorder.kinds]
      .sort((a, b) => b[1].count - a[1].count)
      .slice(0, 3)
      .map(([k, v]) => `${v.count} × ${k}`)
    log(
      `${phase}: ${recorder.requests} requests, ${recorder.figures.revocations} revocations, ${recorder.figures.kills} kills; most other answers: ${top.join('; ')}`,
    )
  }, 15_000)
  try {
    const timer = setTimeout(() => (trafficOver = true), s.seconds * 1000)
    await Promise.all([
      ...Array.from({ length: s.accounts }, (_, slot) => runSlot(ctx, s, slot, population)),
      runChaos(ctx, s, population, log),
    ])
    clearTimeout(timer)
    trafficOver = true
    const trafficSeconds = (performance.now() - started) / 1000
    // Every revocation has answered by now: a stream of its session still open past the bound never ends in time.
    const latest = Math.max(0, ...recorder.lateness.values())
    await sleep(streamEndBoundMs(s.streamSlackMs, latest))
    checkStreamEnds(ctx, s.streamSlackMs)
    phase = 'final checks'
    loop.disable()
    busy.stop()
    await checkAccounts(ctx, population.accounts, population.devices)
    streamsOver = true
    await Promise.all(population.streamTasks)
    recorder.checkServedAfterRevocation()
    for (const a of population.accounts)
      for (const u of a.unexplained401s) u.violation.detail += `; around it (ms): ${a.timelineOf(u.sid, u.at)}`
    await deployment.stop()
    checkStored(
      ctx,
      population.accounts,
      await readStoredAccounts(
        deployment,
        population.accounts.map((a) => a.userId),
      ),
    )
    const report = formatReport(deployment.store, s, recorder, {
      description: deployment.description,
      trafficSeconds,
      totalSeconds: (performance.now() - started) / 1000,
      slackMs: s.streamSlackMs,
      lateness: [...recorder.lateness.values()],
      loopDelay: { p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
      serverErrors: deployment.serverErrors(),
    })
    return { recorder, report }
  } finally {
    clearInterval(progress)
    busy.stop()
    trafficOver = streamsOver = true
    await deployment.stop().catch(() => {})
    await deployment.dispose().catch(() => {})
  }
}

const start: Record<StoreName, () => Promise<Deployment>> = { postgresql: postgresPair, sqlite: sqliteWorkers }
const reachable = (store: string) => store === 'sqlite' || (serviceAvailable('postgresql') && serviceAvailable('redis'))

describe(`soak (seed ${settings.seed}; replay: ${replayCommand(settings)})`, () => {
  for (const store of settings.stores.filter(reachable) as StoreName[]) {
    it(`${store}: every invariant holds`, { timeout: settings.seconds * 1000 + 600_000 }, async () => {
      const { recorder, report } = await soak(await start[store](), settings)
      console.log(report)
      // The failure repeats the report's verdicts: CI keeps the end of the output, where the spec reporter repeats failures.
      const verdicts = report.slice(report.indexOf('  invariants:'))
      assert.equal(
        recorder.brokenInvariants.size,
        0,
        `invariants broken on ${store}, seed ${settings.seed}:\n${verdicts}`,
      )
    })
  }
})
