// Fan-out latency of live updates: a person's edit committed through one instance (or worker)
// appears as an event on a stream held on another. Each edit is sent only after the event of the
// one before it has reached every stream, so each figure is one edit's own path: the HTTP
// request, the commit, the notification (PostgreSQL LISTEN/NOTIFY, Redis pub/sub, or the cluster
// primary), the other process's read of the change and the event's bytes on the socket.
// Latency is from the moment the edit is sent to the moment its event's last byte is read; the
// event's arrival is also given against the edit's HTTP answer (negative: the event came first).
// Scenarios:
//   postgresql        two instances on one database, no REDIS_URL (LISTEN/NOTIFY)
//   postgresql+redis  the same with REDIS_URL (Redis pub/sub)
//   sqlite-workers    `serve --workers 2`; four streams spread over the workers by the cluster,
//                     the edits alternating between two connections held on different workers;
//                     which worker holds each connection is read from /proc (stream-clients.ts)
// Run: npm run build:bench && DATABASE_URL=postgres://… REDIS_URL=redis://…/14 node dist-bench/bench/sync-latency.js
//      [--edits 1000] [--warmup 50] [--only NAME,NAME] [--out bench/results/sync-latency]
// Without DATABASE_URL the PostgreSQL scenarios are skipped, without REDIS_URL the Redis one.
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { BenchDatabases } from './postgres-seed.js'
import { type ServiceProcess, registerAccount, startService } from './processes.js'
import { argsWithoutOut, writeResults } from './report.js'
import {
  type ChangeEvent,
  KeepAliveClient,
  type OpenStream,
  childrenOf,
  openStream,
  processOfConnection,
} from './stream-clients.js'

const DEFAULT_OUT = fileURLToPath(new URL('../../bench/results/sync-latency', import.meta.url))
/** An edit whose event has not reached a stream by then counts as missed. */
const EVENT_TIMEOUT_MS = 10_000

interface Row {
  scenario: string
  /** Where the stream is held, relative to where the edit was committed. */
  path: string
  /** Edits times the streams on this path. */
  events: number
  missed: number
  p50: number
  p95: number
  p99: number
  max: number
  /** Event arrival minus the edit's HTTP answer, median, ms. */
  afterAnswerP50: number
  /** Share of events that arrived before the edit's HTTP answer. */
  beforeAnswer: number
  editP50: number
  loadBefore: number
  loadAfter: number
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number
}

/** A stream and the place it is held (an instance's or a worker's name). */
interface Held {
  stream: OpenStream
  where: string
}

/** An edit connection and where it lands; `where` is re-read whenever its socket changes. */
interface Editor {
  client: KeepAliveClient
  where: (localPort: number) => string
}

interface Samples {
  latency: number[]
  afterAnswer: number[]
  missed: number
}

/**
 * Sends `warmup + edits` edits of one note, each after the previous one's event reached every
 * stream; returns the samples per path, named by `pathOf(editPlace, streamPlace)`.
 */
async function measure(
  noteId: string,
  editors: Editor[],
  streams: Held[],
  edits: number,
  warmup: number,
  pathOf: (edit: string, stream: string) => string,
): Promise<{ paths: Map<string, Samples>; editMs: number[] }> {
  const paths = new Map<string, Samples>()
  const editMs: number[] = []
  for (let i = 0; i < warmup + edits; i++) {
    const editor = editors[i % editors.length] as Editor
    const title = `Edit ${i} ${randomBytes(4).toString('hex')}`
    const arrivals = streams.map(
      (held) =>
        new Promise<ChangeEvent | undefined>((resolve) => {
          const timer = setTimeout(() => resolve(undefined), EVENT_TIMEOUT_MS)
          held.stream.onEvent = (event) => {
            if (event.event !== 'change') return
            const { note } = JSON.parse(event.data) as { note: { title?: string } | null }
            if (note?.title !== title) return
            clearTimeout(timer)
            resolve(event)
          }
        }),
    )
    const sent = performance.now()
    const answer = await editor.client.send('PUT', `/edit-note/${noteId}`, { title, content: `Text of edit ${i}` })
    if (answer.status !== 200) throw new Error(`edit-note answered ${answer.status}: ${answer.body.slice(0, 200)}`)
    const events = await Promise.all(arrivals)
    if (i < warmup) continue
    editMs.push(answer.at - sent)
    const editPlace = editor.where(answer.localPort)
    events.forEach((event, s) => {
      const path = pathOf(editPlace, (streams[s] as Held).where)
      const samples = paths.get(path) ?? { latency: [], afterAnswer: [], missed: 0 }
      paths.set(path, samples)
      if (!event) {
        samples.missed++
        return
      }
      samples.latency.push(event.at - sent)
      samples.afterAnswer.push(event.at - answer.at)
    })
  }
  return { paths, editMs }
}

function rowsOf(
  scenario: string,
  result: { paths: Map<string, Samples>; editMs: number[] },
  loadBefore: number,
): Row[] {
  const editSorted = [...result.editMs].sort((a, b) => a - b)
  return [...result.paths].map(([path, s]) => {
    const latency = [...s.latency].sort((a, b) => a - b)
    const after = [...s.afterAnswer].sort((a, b) => a - b)
    return {
      scenario,
      path,
      events: s.latency.length + s.missed,
      missed: s.missed,
      p50: percentile(latency, 50),
      p95: percentile(latency, 95),
      p99: percentile(latency, 99),
      max: latency.at(-1) ?? NaN,
      afterAnswerP50: percentile(after, 50),
      beforeAnswer: after.filter((ms) => ms < 0).length / Math.max(1, after.length),
      editP50: percentile(editSorted, 50),
      loadBefore,
      loadAfter: loadavg()[0] as number,
    }
  })
}

async function noteOf(client: KeepAliveClient): Promise<string> {
  const added = await client.send('POST', '/add-note', { title: 'Edited by the bench', content: 'first text' })
  if (added.status !== 200) throw new Error(`add-note answered ${added.status}`)
  return (JSON.parse(added.body) as { note: { _id: string } }).note._id
}

interface Run {
  edits: number
  warmup: number
  secret: string
  dataDir: () => string
}

/** Two instances on one PostgreSQL database; edits through A, a stream on B and one on A. */
async function twoInstances(
  run: Run,
  scenario: string,
  databaseUrl: string,
  env: Record<string, string>,
): Promise<Row[]> {
  const started: ServiceProcess[] = []
  const held: Held[] = []
  const editor = { client: undefined as KeepAliveClient | undefined }
  try {
    for (let i = 0; i < 2; i++)
      started.push(await startService({ dataDir: run.dataDir(), secret: run.secret, databaseUrl, env }))
    const [a, b] = started as [ServiceProcess, ServiceProcess]
    const authorization = await registerAccount(a.url, 'Sync Bench', `sync.${process.pid}.${Date.now()}@bench.example`)
    editor.client = new KeepAliveClient(a.url, authorization)
    const noteId = await noteOf(editor.client)
    held.push(
      { stream: await openStream(b.url, authorization), where: 'B' },
      { stream: await openStream(a.url, authorization), where: 'A' },
    )
    const loadBefore = loadavg()[0] as number
    const result = await measure(
      noteId,
      [{ client: editor.client, where: () => 'A' }],
      held,
      run.edits,
      run.warmup,
      (_edit, stream) =>
        stream === 'B' ? 'edit on A, stream on B (other instance)' : 'edit on A, stream on A (same instance)',
    )
    return rowsOf(scenario, result, loadBefore)
  } finally {
    for (const h of held) h.stream.close()
    editor.client?.close()
    for (const s of started) await s.stop()
  }
}

/** `serve --workers 2` on SQLite: four streams and two edit connections, placed by the cluster. */
async function sqliteWorkers(run: Run): Promise<Row[]> {
  const service = await startService({ dataDir: run.dataDir(), secret: run.secret, env: { WORKERS: '2' } })
  const held: Held[] = []
  const clients: KeepAliveClient[] = []
  try {
    const port = Number(new URL(service.url).port)
    const workers = childrenOf(service.pid)
    if (workers.length !== 2) throw new Error(`expected 2 workers under ${service.pid}, found ${workers.length}`)
    const name = (pid: number | undefined) => (pid === undefined ? '?' : `worker ${workers.indexOf(pid) + 1}`)
    const placeOf = (localPort: number) => name(processOfConnection(workers, port, localPort))
    const authorization = await registerAccount(
      service.url,
      'Sync Bench',
      `sync.${process.pid}.${Date.now()}@bench.example`,
    )
    for (let i = 0; i < 4; i++) {
      const stream = await openStream(service.url, authorization)
      held.push({ stream, where: placeOf(stream.localPort) })
    }
    // New connections until one is held by each worker (the kernel deals them to either).
    const editors: Editor[] = []
    const placed = new Set<string>()
    // A kept-alive connection keeps its worker: each client port is looked up once.
    const known = new Map<number, string>()
    const placeOnce = (localPort: number) =>
      known.get(localPort) ?? known.set(localPort, placeOf(localPort)).get(localPort) ?? '?'
    for (let attempt = 0; attempt < 20 && editors.length < 2; attempt++) {
      const client = new KeepAliveClient(service.url, authorization)
      const probe = await client.send('GET', '/get-user')
      const place = placeOf(probe.localPort)
      if (place !== '?' && !placed.has(place)) {
        placed.add(place)
        editors.push({ client, where: placeOnce })
        clients.push(client)
      } else {
        client.close()
      }
    }
    if (editors.length < 2) throw new Error('could not place edit connections on both workers')
    const noteId = await noteOf(editors[0]?.client as KeepAliveClient)
    const streamPlaces = held.map((h) => h.where).join(', ')
    process.stderr.write(`sqlite-workers: streams on ${streamPlaces}\n`)
    const loadBefore = loadavg()[0] as number
    const result = await measure(noteId, editors, held, run.edits, run.warmup, (edit, stream) =>
      edit === stream ? "stream on the edit's worker" : 'stream on the other worker',
    )
    return rowsOf('sqlite --workers 2', result, loadBefore)
  } finally {
    for (const h of held) h.stream.close()
    for (const c of clients) c.close()
    await service.stop()
  }
}

const ms = (v: number) => (Number.isNaN(v) ? '–' : v < 10 ? v.toFixed(2) : v.toFixed(1))

function markdown(
  rows: Row[],
  about: { command: string; cpu: string; nproc: number; node: string; edits: number },
): string {
  const lines = [
    '# Live updates: fan-out latency',
    '',
    `\`${about.command}\` — ${about.edits} edits per scenario, sequential, each waiting for its event on every stream; ${about.nproc} × ${about.cpu}, Node.js ${about.node}.`,
    'Events: edits × the streams on that path. Latency: from sending the edit to reading its event on the stream. "After answer": the event\'s arrival minus the edit\'s HTTP answer (negative: the event came first).',
    '',
    '| scenario | path | events | missed | p50 ms | p95 ms | p99 ms | max ms | event − answer p50 ms | events before the answer | edit answer p50 ms | load avg (1 min) before → after |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.scenario} | ${r.path} | ${r.events} | ${r.missed} | ${ms(r.p50)} | ${ms(r.p95)} | ${ms(r.p99)} | ${ms(r.max)} | ${ms(r.afterAnswerP50)} | ${Math.round(r.beforeAnswer * 100)} % | ${ms(r.editP50)} | ${r.loadBefore.toFixed(2)} → ${r.loadAfter.toFixed(2)} |`,
    ),
    '',
    'Targets: p95 < 1 000 ms and p50 < 100 ms on every path.',
  ]
  return `${lines.join('\n')}\n`
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      edits: { type: 'string', default: '1000' },
      warmup: { type: 'string', default: '50' },
      only: { type: 'string' },
      out: { type: 'string', default: DEFAULT_OUT },
    },
  })
  const databaseUrl = process.env.DATABASE_URL
  const redisUrl = process.env.REDIS_URL
  const wanted = new Set((values.only ?? 'postgresql,postgresql+redis,sqlite-workers').split(','))
  const databases = databaseUrl ? new BenchDatabases(databaseUrl) : undefined
  const root = mkdtempSync(join(tmpdir(), 'notes-sync-bench-'))
  let dirs = 0
  const run: Run = {
    edits: Number(values.edits),
    warmup: Number(values.warmup),
    secret: randomBytes(32).toString('hex'),
    dataDir: () => {
      const dir = join(root, `data-${++dirs}`)
      mkdirSync(dir)
      return dir
    },
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void (databases?.dropAll() ?? Promise.resolve()).finally(() => {
        rmSync(root, { recursive: true, force: true })
        process.exit(130)
      })
    })
  }
  const rows: Row[] = []
  try {
    for (const scenario of ['postgresql', 'postgresql+redis'] as const) {
      if (!wanted.has(scenario)) continue
      if (!databases) {
        process.stderr.write(`${scenario}: skipped (no DATABASE_URL)\n`)
        continue
      }
      if (scenario === 'postgresql+redis' && !redisUrl) {
        process.stderr.write(`${scenario}: skipped (no REDIS_URL)\n`)
        continue
      }
      process.stderr.write(`${scenario}: two instances\n`)
      const url = await databases.create(`${scenario}`)
      rows.push(
        ...(await twoInstances(
          run,
          scenario === 'postgresql'
            ? 'PostgreSQL, 2 instances (LISTEN/NOTIFY)'
            : 'PostgreSQL, 2 instances + Redis pub/sub',
          url,
          scenario === 'postgresql' ? {} : { REDIS_URL: redisUrl as string },
        )),
      )
    }
    if (wanted.has('sqlite-workers')) {
      process.stderr.write('sqlite-workers: serve --workers 2\n')
      rows.push(...(await sqliteWorkers(run)))
    }
  } finally {
    await databases?.dropAll()
    rmSync(root, { recursive: true, force: true })
  }
  const env = [databaseUrl ? 'DATABASE_URL=postgres://… ' : '', redisUrl ? 'REDIS_URL=redis://… ' : ''].join('')
  const flags = argsWithoutOut()
  const about = {
    command: `${env}node dist-bench/bench/sync-latency.js${flags.length ? ` ${flags.join(' ')}` : ''}`,
    cpu: cpus()[0]?.model.trim() ?? 'unknown CPU',
    nproc: cpus().length,
    node: process.version,
    edits: run.edits,
  }
  const report = markdown(rows, about)
  process.stdout.write(report)
  writeResults(values.out, report, { ...about, rows })
}

main().catch((err: unknown) => {
  process.stderr.write(`sync-latency failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exitCode = 1
})
