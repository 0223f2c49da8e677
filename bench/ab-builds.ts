// A/B of whole builds: serves one GET path from several builds of the service side by side, in
// alternating rounds (so the machine's drift falls on all alike), and reports each build's req/s,
// service CPU per request and p99, with req/s as a ratio to the first build (the baseline).
// A build is a directory holding the project with `dist/` built (this checkout, or a git worktree
// of an earlier commit after `npm run build` there; the worktree may symlink node_modules here).
// Run: npm run build:bench && node dist-bench/bench/ab-builds.js PATH DIR_A DIR_B [DIR ...]
//      e.g. node dist-bench/bench/ab-builds.js /get-user ../baseline .
//      A build may name node flags after its directory, `DIR:--flag,--flag` (e.g.
//      `.:--max-semi-space-size=4`), to compare one build with and without them.
//      env ROUNDS=4, DURATION=4 (seconds per round), PROCESSES=1 (fresh processes per build, one
//      after another), NOTES=20, CONNECTIONS=32 (1: one request
//      at a time, the latency of an idle service), PIPELINING=1, and the service settings of
//      cpu-per-request (DATABASE_URL, LISTING_CACHE_MB, METRICS_ENABLED, LOG_LEVEL, ...) for all.
import { resolve } from 'node:path'
import { LoadTally, REALISTIC, runLoad } from './load.js'
import { SERVICE_SETTINGS, type ServiceWithUser, addNotes, cpuSeconds, startServiceWithUser } from './processes.js'

interface Build {
  /** The argument as given, which names the build in the table. */
  name: string
  dir: string
  /** Node flags after the launcher's own. */
  flags: string[]
  tally: LoadTally
  cpu: number
}

async function main(): Promise<void> {
  const [path, ...dirs] = process.argv.slice(2)
  if (!path?.startsWith('/') || dirs.length < 2) {
    throw new Error('usage: node dist-bench/bench/ab-builds.js PATH DIR_A DIR_B [DIR ...]')
  }
  const rounds = Number(process.env.ROUNDS ?? 4)
  const seconds = Number(process.env.DURATION ?? 4)
  const notes = Number(process.env.NOTES ?? 20)
  const connections = Number(process.env.CONNECTIONS ?? REALISTIC.connections)
  const pipelining = Number(process.env.PIPELINING ?? 1)
  const shape = { label: `${connections} conn × ${pipelining}`, connections, pipelining }
  // Each process of a build runs at its own speed (one instance of the same build measured 31 and
  // 36 µs per request in one run: code placement, JIT), so a comparison of one process per build
  // can show a difference that is not the builds'. PROCESSES starts them all afresh that many
  // times, alternating, and adds up every process's rounds.
  const processes = Number(process.env.PROCESSES ?? 1)
  const builds: Build[] = dirs.map((name) => {
    const [dir, flags] = name.split(':')
    return { name, dir: dir as string, flags: flags ? flags.split(',') : [], tally: new LoadTally(), cpu: 0 }
  })
  /** Each build's process of the current repetition, in the order of `builds`. */
  const running: ServiceWithUser[] = []
  try {
    for (let p = 0; p < processes; p++) {
      for (const b of builds) {
        // The launcher's node flag (bin/notes-service), without depending on each build's launcher.
        const command = [process.execPath, '--heap-growing-percent=50', ...b.flags, resolve(b.dir, 'dist/src/cli.js')]
        const started = await startServiceWithUser(SERVICE_SETTINGS, command)
        running.push(started)
        await addNotes(started.service.url, started.authorization, notes)
      }
      const requestOf = (r: ServiceWithUser) => [
        { method: 'GET' as const, path, headers: { authorization: r.authorization } },
      ]
      for (const r of running) await runLoad(r.service.url, requestOf(r), shape, 1) // warm-up
      for (let round = 0; round < rounds; round++) {
        for (const [i, b] of builds.entries()) {
          const r = running[i]!
          const before = cpuSeconds(r.service.pid)
          await runLoad(r.service.url, requestOf(r), shape, seconds, b.tally)
          b.cpu += cpuSeconds(r.service.pid) - before
        }
      }
      while (running.length > 0) await running.pop()!.stop()
    }
    const baseline = builds[0]!.tally.result().rps
    console.log(
      `GET ${path}, ${shape.label}, ${processes} process(es) per build, each ${rounds} alternating rounds of ${seconds} s\n`,
    )
    console.log(
      '| build | req/s | ratio to the first | service CPU µs per request | p50 ms | p99 ms | non-2xx |\n|---|---|---|---|---|---|---|',
    )
    for (const b of builds) {
      const r = b.tally.result()
      const micros = (b.cpu * 1e6) / Math.max(1, r.ok + r.non2xx)
      console.log(
        `| ${b.name} | ${Math.round(r.rps)} | ${(r.rps / baseline).toFixed(2)} | ${micros.toFixed(1)} | ${r.p50.toFixed(3)} | ${r.p99.toFixed(2)} | ${r.non2xx} |`,
      )
    }
  } finally {
    for (const r of running) await r.stop()
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`ab-builds failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exitCode = 1
})
