// `serve --workers N`: N server processes sharing the port (node:cluster). The primary makes the secret file and
// runs the migrations before forking; without REDIS_URL it holds the brute-force counters for all workers over IPC,
// so spreading attempts over workers does not multiply the limits, and on SQLite it relays the change bus between them.
import cluster, { type Worker } from 'node:cluster'
import { RateLimiterCluster, RateLimiterClusterMaster } from 'rate-limiter-flexible'
import type { Config } from './config.js'
import { resolveSecret } from './secret.js'
import { closeOnSignals, startServer } from './server.js'
import type { LimiterFactory } from './services/brute-force.js'
import { busDriverFor } from './services/change-bus/choose.js'
import { relayChangesBetweenWorkers } from './services/change-bus/cluster.js'
import { openStore } from './store/open.js'

const clusterLimiters: LimiterFactory = (opts) => new RateLimiterCluster({ ...opts, timeoutMs: 2000 })

const say = (line: string) => process.stderr.write(`notes-service: ${line}\n`)

async function runPrimary(config: Config, workers: number): Promise<number> {
  const { file, generated } = resolveSecret(config.accessTokenSecret, config.dataDir)
  if (generated) say(`ACCESS_TOKEN_SECRET is not set: generated a random secret and saved it in ${file} (mode 0600)`)
  await (await openStore(config)).close()
  if (!config.redisUrl) new RateLimiterClusterMaster()
  if (busDriverFor(config, true) === 'cluster') relayChangesBetweenWorkers()

  // The kernel deals connections to the workers, each accepting from the one listening socket. In node:cluster's
  // default round-robin the primary accepts them and passes each to a worker over IPC: one in flight to a worker that
  // dies stays open in the primary, and its client waits forever (docs/operations.md, "Workers").
  cluster.schedulingPolicy = cluster.SCHED_NONE
  let stopping = false
  let exitCode = 0
  /** Running workers, and whether each has started listening. */
  const started = new Map<Worker, boolean>()
  const fork = () => started.set(cluster.fork(), false)
  return new Promise<number>((resolve) => {
    cluster.on('listening', (worker) => started.set(worker, true))
    cluster.on('exit', (worker, code, signal) => {
      const wasServing = started.get(worker) ?? false
      started.delete(worker)
      if (!stopping && !wasServing) {
        // Failing at start (port taken, database gone): restarting would only spin.
        say(`worker ${worker.process.pid} failed to start (exit ${code}); stopping`)
        exitCode = 1
        stop()
      } else if (!stopping) {
        say(`worker ${worker.process.pid} exited (${signal ?? `code ${code}`}); starting a new one`)
        fork()
      }
      // A worker killed or timed out instead of closing may have cut requests short.
      if (stopping && wasServing && (signal !== null || code !== 0)) {
        say(`worker ${worker.process.pid} did not close gracefully (${signal ?? `exit ${code}`})`)
        exitCode = 1
      }
      if (stopping && started.size === 0) resolve(exitCode)
    })
    const stop = () => {
      if (stopping) return
      stopping = true
      for (const worker of started.keys()) worker.process.kill('SIGTERM')
      if (started.size === 0) resolve(exitCode)
    }
    process.once('SIGTERM', stop)
    process.once('SIGINT', stop)
    for (let i = 0; i < workers; i++) fork()
  })
}

/** `serve`: one process, or the primary of `workers` processes. Resolves to an exit code, or -1 while serving. */
export async function serve(config: Config, workers: number): Promise<number> {
  if (workers > 1 && cluster.isPrimary) return runPrimary(config, workers)
  // Ctrl-C's SIGINT reaches the whole group besides the primary's SIGTERM; close-with-grace takes a second as "exit now".
  if (cluster.isWorker) process.on('SIGINT', () => {})
  const starting = startServer(config, cluster.isWorker && !config.redisUrl ? clusterLimiters : undefined)
  const uninstall = closeOnSignals(starting, cluster.isWorker ? ['SIGINT'] : [])
  try {
    await starting
  } catch (err) {
    uninstall()
    if (!cluster.isWorker) throw err
    // The IPC channel would keep a worker alive after the error.
    say(err instanceof Error ? err.message : String(err))
    process.exit(1)
  }
  return -1
}
