// What does bounding V8's heap growth (the launcher's --heap-growing-percent=50) do under the
// load that set the PostgreSQL service's peak RSS: edit-note, 100 connections × 10 pipelined,
// so about 1 000 requests wait for the pool's connections at any time?
// Each variant is the service started as `node [flags] dist/src/cli.js serve` with the launcher's
// GLIBC_TUNABLES, on one fresh bench database (dropped at the end), in alternating rounds: 3 s at
// 32 connections, then 10 s pipelined while /metrics is read every 250 ms. The table gives, per
// round, the service's peak RSS, V8's largest heap, edits/s and the service's CPU per edit (from
// /proc/<pid>/stat), and the medians.
// Run: npm run build && PGURL=postgres://postgres@127.0.0.1:5432/test node dist/bench/pipelined-memory.js
// Figures depend on the machine and its load: compare the variants within one run only.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { publicUser } from '../src/services/accounts.js'
import { createTokenService } from '../src/services/tokens.js'
import { type LoadRequest, PIPELINED, REALISTIC, runLoad } from './load.js'
import { median } from './measure.js'
import { BenchDatabases, PostgresSeeder } from './postgres-seed.js'
import { startService } from './processes.js'
import { makeNotes, makeUser } from './seed.js'

const ADMIN_URL = process.env.PGURL ?? 'postgres://postgres@127.0.0.1:5432/test'
const ROUNDS = Number(process.env.ROUNDS ?? 3)
const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url))
const TUNABLES = 'glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=4194304'
const VARIANTS: Array<[string, string[]]> = [
  ["V8's default", []],
  ['--heap-growing-percent=50 (launcher)', ['--heap-growing-percent=50']],
]
const MB = 2 ** 20

/** User plus system CPU time of a process so far, in microseconds (clock ticks of 10 ms). */
function cpuMicros(pid: number): number {
  const fields = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10_000
}

interface Round {
  rssMb: number
  heapMb: number
  rps: number
  cpuMicrosPerEdit: number
}

async function measure(flags: string[], url: string, dataDir: string, secret: string, edit: LoadRequest): Promise<Round> {
  const service = await startService({ dataDir, secret, databaseUrl: url, env: { GLIBC_TUNABLES: TUNABLES }, command: [process.execPath, ...flags, CLI] })
  try {
    await runLoad(service.url, [edit], REALISTIC, 3)
    let heap = 0
    const sampler = setInterval(() => {
      fetch(`${service.url}/metrics`)
        .then((res) => res.text())
        .then((text) => {
          heap = Math.max(heap, Number(/^nodejs_heap_size_total_bytes (\S+)$/m.exec(text)?.[1] ?? 0))
        })
        .catch(() => {})
    }, 250)
    const before = cpuMicros(service.pid)
    const result = await runLoad(service.url, [edit], PIPELINED, 10)
    clearInterval(sampler)
    return { rssMb: service.rss.max / MB, heapMb: heap / MB, rps: result.rps, cpuMicrosPerEdit: (cpuMicros(service.pid) - before) / Math.max(1, result.ok) }
  } finally {
    await service.stop()
  }
}


async function main(): Promise<void> {
  const databases = new BenchDatabases(ADMIN_URL)
  const dataDir = mkdtempSync(join(tmpdir(), 'notes-bench-memory-'))
  try {
    const url = await databases.create(dataDir)
    const seeder = new PostgresSeeder(url)
    await seeder.migrate()
    const user = makeUser('pipelined-writer')
    const notes = [...makeNotes(user._id, 20)]
    await seeder.insertUsers([user])
    await seeder.insertNotes(notes)
    await seeder.close()
    const secret = 'pipelined-memory-bench-secret-0123456789'
    const token = createTokenService(secret).issue(publicUser(user))
    const edit: LoadRequest = {
      method: 'PUT',
      path: `/edit-note/${notes[0]?._id ?? ''}`,
      headers: { authorization: `Bearer ${token}` },
      body: JSON.stringify({ title: 'edited', content: 'edited under pipelined load' }),
    }
    const rounds = new Map<string, Round[]>(VARIANTS.map(([name]) => [name, []]))
    console.log('| variant | round | peak RSS MB | V8 heap MB | edits/s | CPU µs per edit |\n|---|---|---|---|---|---|')
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [name, flags] of VARIANTS) {
        const r = await measure(flags, url, dataDir, secret, edit)
        rounds.get(name)?.push(r)
        console.log(`| ${name} | ${round} | ${r.rssMb.toFixed(0)} | ${r.heapMb.toFixed(0)} | ${r.rps.toFixed(0)} | ${r.cpuMicrosPerEdit.toFixed(0)} |`)
      }
    }
    for (const [name, rs] of rounds) {
      const m = (f: (r: Round) => number) => median(rs.map(f)).toFixed(0)
      console.log(`| ${name} | median | ${m((r) => r.rssMb)} | ${m((r) => r.heapMb)} | ${m((r) => r.rps)} | ${m((r) => r.cpuMicrosPerEdit)} |`)
    }
  } finally {
    await databases.dropAll()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`pipelined-memory failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exitCode = 1
})
