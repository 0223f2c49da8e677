// 5 000 idle live-update streams on one instance: what they cost in memory, and what they cost
// get-all-notes (20 notes, 32 connections, the bench's load of bench/load.ts). One account may
// hold only 10 streams, so the streams are spread over 500 accounts registered through the API.
// In one run, on one service process, phases without and with the streams open alternate
// (without, with, with, without, …: drift falls on both alike); the streams are opened before
// each "with" phase and closed after it. Before those phases, the first opening goes in five
// steps with the service left idle at each: RSS from /proc, V8's used heap and the open streams
// from /metrics, so the per-stream cost is a slope rather than one difference; and the service's
// idle CPU over one heartbeat period (each stream's heartbeat also re-reads its feed) without and
// with the streams.
// Run: npm run build:bench && node dist-bench/bench/idle-streams.js
//      [--streams 5000] [--accounts 500] [--rounds 2] [--duration 8] [--out bench/results/idle-streams]
//      DATABASE_URL=postgres://… runs it on PostgreSQL (a database of its own, dropped after);
//      --service-env KEY=VALUE adds a service setting (repeatable).
// Needs about `streams` + 200 open files in this process and in the service (`ulimit -n`).
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { type LoadRequest, REALISTIC, runLoad } from './load.js'
import { BenchDatabases } from './postgres-seed.js'
import { type ServiceProcess, addNotes, cpuSeconds, registerAccount, rssOf, startService } from './processes.js'
import { argsWithoutOut, writeResults } from './report.js'
import { type OpenStream, openStream } from './stream-clients.js'

/** The service's per-instance stream limit, set above the run's streams. */
const INSTANCE_STREAM_LIMIT = 'STREAMS_PER_INSTANCE'
/** The service's heartbeat period unless STREAM_HEARTBEAT_MS is given. */
const DEFAULT_HEARTBEAT_MS = 15_000
const DEFAULT_OUT = fileURLToPath(new URL('../../bench/results/idle-streams', import.meta.url))
const MB = 2 ** 20
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** This process's open-file limit (the service inherits it). */
function openFileLimit(): number {
  const m = /Max open files\s+(\d+|unlimited)/.exec(readFileSync('/proc/self/limits', 'utf8'))
  return !m || m[1] === 'unlimited' ? Infinity : Number(m[1])
}

/** Runs `work` over `items`, `concurrency` at a time. */
async function inParallel<T, R>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length)
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const i = next++
        results[i] = await work(items[i] as T, i)
      }
    }),
  )
  return results
}

/** The median of a few RSS readings a quarter second apart, once the process has been left alone. */
async function settledRss(pid: number): Promise<number> {
  await sleep(2000)
  const readings: number[] = []
  for (let i = 0; i < 5; i++) {
    readings.push(rssOf(pid) ?? 0)
    await sleep(250)
  }
  return readings.sort((a, b) => a - b)[2] as number
}

interface Phase {
  streams: number
  rps: number
  /** Service CPU µs per get-all-notes answered (its wait for the idle probe included). */
  cpuUs: number
  p50: number
  p99: number
  non2xx: number
  load: number
  loadAfter: number
  rssPeakMb: number
}

/** The service's memory with `streams` open, once it has been left alone. */
interface Step {
  streams: number
  /** live_streams_open as the service counts them. */
  serviceStreams: number
  rssMb: number
  heapMb: number
  openFds: number
}

/** A gauge's value in Prometheus text (NaN when absent). */
const gauge = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN)

async function step(service: ServiceProcess, streams: number): Promise<Step> {
  const rss = await settledRss(service.pid)
  const metrics = await (await fetch(`${service.url}/metrics`)).text()
  return {
    streams,
    serviceStreams: gauge(metrics, 'live_streams_open'),
    rssMb: rss / MB,
    heapMb: gauge(metrics, 'nodejs_heap_size_used_bytes') / MB,
    openFds: gauge(metrics, 'process_open_fds'),
  }
}

/** Least-squares slope of `y` over the steps' stream counts. */
function slope(steps: Step[], y: (s: Step) => number): number {
  const n = steps.length
  const mx = steps.reduce((sum, s) => sum + s.streams, 0) / n
  const my = steps.reduce((sum, s) => sum + y(s), 0) / n
  const sxy = steps.reduce((sum, s) => sum + (s.streams - mx) * (y(s) - my), 0)
  const sxx = steps.reduce((sum, s) => sum + (s.streams - mx) ** 2, 0)
  return sxy / sxx
}

/** The service's CPU use (% of one core) over `ms` while nothing is asked of it. */
async function idleCpu(pid: number, ms: number): Promise<number> {
  const before = cpuSeconds(pid)
  await sleep(ms)
  return ((cpuSeconds(pid) - before) / (ms / 1000)) * 100
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      streams: { type: 'string', default: '5000' },
      accounts: { type: 'string', default: '500' },
      rounds: { type: 'string', default: '2' },
      duration: { type: 'string', default: '8' },
      out: { type: 'string', default: DEFAULT_OUT },
      'service-env': { type: 'string', multiple: true },
    },
  })
  const streamCount = Number(values.streams)
  const accountCount = Number(values.accounts)
  const perAccount = Math.ceil(streamCount / accountCount)
  const rounds = Number(values.rounds)
  const duration = Number(values.duration)
  if (perAccount > 10)
    throw new Error(
      `${streamCount} streams over ${accountCount} accounts is ${perAccount} per account; an account may hold 10`,
    )
  const limit = openFileLimit()
  if (limit < streamCount + 200)
    throw new Error(
      `the open-file limit is ${limit}; ${streamCount} streams need ${streamCount + 200} (raise it: ulimit -n ${streamCount + 1000})`,
    )

  const serviceEnv: Record<string, string> = {
    [INSTANCE_STREAM_LIMIT]: String(streamCount + 100),
    METRICS_ENABLED: 'true',
  }
  for (const pair of values['service-env'] ?? []) {
    const at = pair.indexOf('=')
    if (at < 1) throw new Error(`--service-env wants KEY=VALUE, got "${pair}"`)
    serviceEnv[pair.slice(0, at)] = pair.slice(at + 1)
  }
  const heartbeatMs = Number(serviceEnv.STREAM_HEARTBEAT_MS ?? DEFAULT_HEARTBEAT_MS)
  const databases = process.env.DATABASE_URL ? new BenchDatabases(process.env.DATABASE_URL) : undefined
  const dataDir = mkdtempSync(join(tmpdir(), 'notes-idle-streams-'))
  const databaseUrl = databases ? await databases.create(dataDir) : undefined
  const service = await startService({
    dataDir,
    secret: randomBytes(32).toString('hex'),
    env: serviceEnv,
    ...(databaseUrl ? { databaseUrl } : {}),
  })
  let open: OpenStream[] = []
  /** Streams the service ended while the bench held them open. */
  let endedByService = 0
  let closing = false
  try {
    process.stderr.write(`registering ${accountCount} accounts\n`)
    const accounts = await inParallel(
      Array.from({ length: accountCount }, (_, i) => i),
      4,
      (i) => registerAccount(service.url, `Idle ${i}`, `idle.${i}.${process.pid}@bench.example`),
    )
    const reader = accounts[0] as string
    await addNotes(service.url, reader, 20)
    const listNotes: LoadRequest = { method: 'GET', path: '/get-all-notes', headers: { authorization: reader } }
    await runLoad(service.url, [listNotes], REALISTIC, 2) // warm-up

    const holders = Array.from({ length: streamCount }, (_, i) => accounts[i % accountCount] as string)
    const openStreams = (holding: string[]) =>
      inParallel(holding, 50, async (authorization) => {
        const stream = await openStream(service.url, authorization)
        void stream.ended.then(() => {
          if (!closing) endedByService++
        })
        return stream
      })
    let openSeconds = 0
    const closeAll = async () => {
      closing = true
      for (const s of open) s.close()
      await Promise.all(open.map((s) => s.ended))
      open = []
      closing = false
      await sleep(2000) // the service's side of each close
    }

    // Before any stream: memory, and the service's CPU over one heartbeat period while idle.
    const steps: Step[] = [await step(service, 0)]
    const idleCpuWithout = await idleCpu(service.pid, heartbeatMs)
    // The first opening goes in five steps, memory read at each: the per-stream cost is the slope.
    for (let k = 1; k <= 5; k++) {
      const began = performance.now()
      open.push(...(await openStreams(holders.slice(open.length, Math.round((k * streamCount) / 5)))))
      openSeconds += (performance.now() - began) / 1000
      steps.push(await step(service, open.length))
    }
    const idleCpuWith = await idleCpu(service.pid, heartbeatMs)
    await closeAll()
    const afterClose = await step(service, 0)

    const phases: Phase[] = []
    // without, with, with, without, …
    const order = Array.from({ length: rounds * 2 }, (_, i) => (i % 4 === 1 || i % 4 === 2 ? 'with' : 'without'))
    for (const kind of order) {
      if (kind === 'with' && open.length === 0) {
        open = await openStreams(holders)
        await sleep(2000)
      }
      if (kind === 'without' && open.length > 0) await closeAll()
      const load = loadavg()[0] as number
      process.stderr.write(`get-all-notes with ${open.length} streams open (load ${load.toFixed(2)})\n`)
      service.rss.mark()
      const cpuBefore = cpuSeconds(service.pid)
      const result = await runLoad(service.url, [listNotes], REALISTIC, duration)
      // CPU per request moves far less than req/s when other work shares the cores.
      const cpuUs = ((cpuSeconds(service.pid) - cpuBefore) / Math.max(1, result.ok)) * 1e6
      phases.push({
        streams: open.length,
        rps: result.rps,
        cpuUs,
        p50: result.p50,
        p99: result.p99,
        non2xx: result.non2xx,
        load,
        loadAfter: loadavg()[0] as number,
        rssPeakMb: service.rss.mark() / MB,
      })
    }
    await closeAll()

    const mean = (list: Phase[], of: (p: Phase) => number) =>
      list.reduce((sum, p) => sum + of(p), 0) / Math.max(1, list.length)
    const withRps = mean(
      phases.filter((p) => p.streams > 0),
      (p) => p.rps,
    )
    const withoutRps = mean(
      phases.filter((p) => p.streams === 0),
      (p) => p.rps,
    )
    const withCpuUs = mean(
      phases.filter((p) => p.streams > 0),
      (p) => p.cpuUs,
    )
    const withoutCpuUs = mean(
      phases.filter((p) => p.streams === 0),
      (p) => p.cpuUs,
    )
    // Each round holds one phase of each kind, next to each other: its ratio sees the least drift.
    const roundRatios = Array.from({ length: rounds }, (_, r) => {
      const pair = phases.slice(2 * r, 2 * r + 2)
      return (pair.find((p) => p.streams > 0)?.rps ?? NaN) / (pair.find((p) => p.streams === 0)?.rps ?? NaN)
    })
    const sorted = [...roundRatios].sort((a, b) => a - b)
    const medianRatio =
      ((sorted[Math.floor((rounds - 1) / 2)] as number) + (sorted[Math.ceil((rounds - 1) / 2)] as number)) / 2
    const full = steps.at(-1) as Step
    const summary = {
      streams: streamCount,
      accounts: accountCount,
      store: databaseUrl ? 'PostgreSQL' : 'SQLite',
      serviceEnv,
      openSeconds,
      endedByService,
      steps,
      afterClose,
      perStreamKb: { rss: slope(steps, (s) => s.rssMb) * 1024, heap: slope(steps, (s) => s.heapMb) * 1024 },
      idleCpuPercent: { without: idleCpuWithout, with: idleCpuWith },
      withRps,
      withoutRps,
      ratio: withRps / withoutRps,
      roundRatios,
      medianRatio,
      withCpuUs,
      withoutCpuUs,
      phases,
    }
    const command = `${databaseUrl ? 'DATABASE_URL=postgres://… ' : ''}node dist-bench/bench/idle-streams.js${argsWithoutOut()
      .map((a) => ` ${a}`)
      .join('')}`
    const report = [
      '# Live updates: idle streams on one instance',
      '',
      `\`${command}\` — ${summary.store}, ${streamCount} streams over ${accountCount} accounts, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, Node.js ${process.version}; service settings: ${Object.entries(
        serviceEnv,
      )
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}.`,
      '',
      "The first opening, in five steps (RSS: the median of five readings after 2 s idle; heap: V8's used heap from /metrics; streams: the service's own `live_streams_open`):",
      '',
      '| streams open (service) | RSS MB | V8 heap used MB | open files |',
      '|---|---|---|---|',
      ...[...steps, afterClose].map(
        (s, i) =>
          `| ${i === steps.length ? 'all closed: ' : ''}${s.streams} (${s.serviceStreams}) | ${s.rssMb.toFixed(1)} | ${s.heapMb.toFixed(1)} | ${s.openFds} |`,
      ),
      '',
      `Per stream (least-squares slope over the steps): ${summary.perStreamKb.rss.toFixed(1)} KB of RSS, ${summary.perStreamKb.heap.toFixed(1)} KB of V8 heap. With all ${streamCount} open: ${full.rssMb.toFixed(1)} MB RSS.`,
      `Opening them (50 at a time) took ${openSeconds.toFixed(1)} s; the service ended ${endedByService} of the streams while they were held.`,
      `Service CPU while idle over one heartbeat period (${heartbeatMs / 1000} s): ${idleCpuWithout.toFixed(1)} % without the streams, ${idleCpuWith.toFixed(1)} % with them.`,
      '',
      '| phase | streams open | get-all-notes req/s | service CPU µs per request | p50 ms | p99 ms | non-2xx | peak RSS MB | load avg (1 min) before → after |',
      '|---|---|---|---|---|---|---|---|---|',
      ...phases.map(
        (p, i) =>
          `| ${i + 1} | ${p.streams} | ${Math.round(p.rps)} | ${p.cpuUs.toFixed(1)} | ${p.p50.toFixed(2)} | ${p.p99.toFixed(2)} | ${p.non2xx} | ${p.rssPeakMb.toFixed(1)} | ${p.load.toFixed(2)} → ${p.loadAfter.toFixed(2)} |`,
      ),
      '',
      `With the streams: ${Math.round(withRps)} req/s, without: ${Math.round(withoutRps)} req/s (ratio of the means ${summary.ratio.toFixed(3)}); each round's ratio (phases ${rounds > 1 ? '1–2, 3–4, …' : '1–2'}): ${roundRatios.map((r) => r.toFixed(3)).join(', ')}, median ${medianRatio.toFixed(3)}.`,
      `Service CPU per request: ${withoutCpuUs.toFixed(1)} µs without the streams, ${withCpuUs.toFixed(1)} µs with them (ratio ${(withCpuUs / withoutCpuUs).toFixed(3)}).`,
      'Targets: RSS < 400 MB with the streams open; get-all-notes within 10 % of its throughput without them.',
      '',
    ].join('\n')
    process.stdout.write(report)
    writeResults(values.out, report, { command, ...summary })
  } finally {
    for (const s of open) s.close()
    await service.stop()
    await databases?.dropAll()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`idle-streams failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exitCode = 1
})
