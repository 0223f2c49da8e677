// A fresh service for each round of the import bench: SQLite in a new data directory, or PostgreSQL in a database of
// its own made on the server of ADMIN_DATABASE_URL and dropped after; one account registered through the API, and the
// service's peak memory (VmRSS sampled every 100 ms, and the kernel's own VmHWM) read around each measured request.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { PostgresSeeder } from '../postgres-seed.js'
import { type ServiceProcess, registerAccount, startService } from '../processes.js'
import { SqliteSeeder, makeNotes } from '../seed.js'

export type StoreName = 'sqlite' | 'postgresql'

const MB = 2 ** 20

/** Limits far above what the bench imports, and no request timeout for a file of hundreds of MB. */
const SERVICE_ENV: Record<string, string> = {
  MAX_IMPORT_MB: '2048',
  MAX_ATTACHMENT_MB: '256',
  MAX_ATTACHMENT_MB_PER_ACCOUNT: '0',
  MAX_NOTE_MB_PER_ACCOUNT: '4096',
  REQUEST_TIMEOUT_MS: '3600000',
}

/** The kernel's peak resident set size of a process (VmHWM), in bytes. */
export function peakRssOf(pid: number): number {
  const m = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) * 1024 : NaN
}

async function admin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl, application_name: 'notes-service import bench' })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end().catch(() => {})
  }
}

export interface BenchService {
  store: StoreName
  service: ServiceProcess
  authorization: string
  userId: string
  /** The service's RSS before the measured request (after start-up and registration), in MiB. */
  idleRssMB: number
  /** Stops the service and removes its data (directory, database). */
  stop(): Promise<void>
}

let serial = 0

/** Starts a service on a fresh store with one account; with `seedNotes`, that account holds that many notes. */
export async function freshService(store: StoreName, adminUrl: string, seedNotes = 0): Promise<BenchService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'notes-bench-import-'))
  const secret = randomBytes(32).toString('hex')
  let databaseUrl: string | undefined
  let database: string | undefined
  if (store === 'postgresql') {
    database = `notes_bench_import_${process.pid}_${++serial}`
    await admin(adminUrl, (client) => client.query(`CREATE DATABASE ${database}`))
    const url = new URL(adminUrl)
    url.pathname = `/${database}`
    databaseUrl = url.toString()
  }
  // CPU_PROF=DIR: the service writes a V8 CPU profile into DIR when it stops (where an import's time goes).
  const nodeArgs = process.env.CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.CPU_PROF}`] : []
  const start = () =>
    startService({ dataDir, secret, env: SERVICE_ENV, nodeArgs, ...(databaseUrl ? { databaseUrl } : {}) })
  const removeData = async () => {
    rmSync(dataDir, { recursive: true, force: true })
    if (database) {
      const name = database
      await admin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
    }
  }
  let service = await start().catch(async (err: unknown) => {
    await removeData()
    throw err
  })
  try {
    const authorization = await registerAccount(
      service.url,
      'Import bench',
      `import.${process.pid}.${serial}@bench.example`,
    )
    const user = (await (await fetch(`${service.url}/get-user`, { headers: { authorization } })).json()) as {
      user: { _id: string }
    }
    if (seedNotes > 0) {
      // Written straight into the store with the service stopped (bench/seed.ts): 100 000 notes in seconds.
      await service.stop()
      const seeder = databaseUrl ? new PostgresSeeder(databaseUrl) : new SqliteSeeder(dataDir)
      await seeder.insertNotes(makeNotes(user.user._id, seedNotes))
      await seeder.close()
      service = await start()
    }
    const running = service
    return {
      store,
      service: running,
      authorization,
      userId: user.user._id,
      idleRssMB: (running.rss.mark() || NaN) / MB,
      async stop() {
        await running.stop()
        await removeData()
      },
    }
  } catch (err) {
    await service.stop()
    await removeData()
    throw err
  }
}

/** Runs `work` against the service and returns its result with the service's peak RSS meanwhile (MiB). */
export async function measured<T>(
  bench: BenchService,
  work: () => Promise<T>,
): Promise<{ result: T; peakRssMB: number; hwmMB: number }> {
  bench.service.rss.mark()
  const result = await work()
  return { result, peakRssMB: bench.service.rss.mark() / MB, hwmMB: peakRssOf(bench.service.pid) / MB }
}
