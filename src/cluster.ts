// `serve --workers N`: N server processes on one machine sharing the port (node:cluster), for
// either store. The primary prepares what must happen once (the secret file, the migrations,
// so an unreachable database is one line before anything is forked), then forks the workers,
// replaces a worker that dies after it started serving, and on SIGTERM/SIGINT asks every
// worker to close gracefully and exits when they have.
//
// Brute-force counters: with REDIS_URL they are shared through Redis; without it the primary
// holds them in memory for all workers (rate-limiter-flexible's cluster limiter over IPC), so
// spreading attempts over workers does not multiply the limits.
import cluster, { type Worker } from 'node:cluster'
import { RateLimiterCluster, RateLimiterClusterMaster } from 'rate-limiter-flexible'
import type { Config } from './config.js'
import { resolveSecret } from './secret.js'
import { closeOnSignals, startServer } from './server.js'
import type { LimiterFactory } from './services/brute-force.js'
import { openStore } from './store/open.js'

/** A worker that exits within this long of starting is failing to start, not crashing later. */
const START_GRACE_MS = 10_000

const clusterLimiters: LimiterFactory = (opts) => new RateLimiterCluster({ ...opts, timeoutMs: 2000 })

function say(line: string): void {
  process.stderr.write(`notes-service: ${line}\n`)
}

/** Runs in the primary; resolves to the exit code once every worker has stopped. */
async function runPrimary(config: Config, workers: number): Promise<number> {
  resolveSecret(config.accessTokenSecret, config.dataDir)
  await (await openStore(config)).close()
  if (!config.redisUrl) new RateLimiterClusterMaster()

  let stopping = false
  let exitCode = 0
  const started = new Map<Worker, number>()
  const fork = () => started.set(cluster.fork(), Date.now())
  return new Promise<number>((resolve) => {
    cluster.on('exit', (worker, code, signal) => {
      const since = started.get(worker) ?? 0
      started.delete(worker)
      if (!stopping) {
        if (Date.now() - since < START_GRACE_MS && code !== 0) {
          // Failing at start (port taken, database gone): restarting would only spin.
          say(`worker ${worker.process.pid} failed to start (exit ${code}); stopping`)
          exitCode = 1
          stop()
        } else {
          say(`worker ${worker.process.pid} exited (${signal ?? `code ${code}`}); starting a new one`)
          fork()
        }
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

/**
 * `serve`: one process when workers is 1; otherwise this process becomes the primary of
 * `workers` processes. Resolves to an exit code, or -1 while the server keeps running.
 */
export async function serve(config: Config, workers: number): Promise<number> {
  if (workers > 1 && cluster.isPrimary) return runPrimary(config, workers)
  const limiterFactory = cluster.isWorker && !config.redisUrl ? clusterLimiters : undefined
  const server = await startServer(config, limiterFactory ? { limiterFactory } : {})
  closeOnSignals(server)
  return -1
}
