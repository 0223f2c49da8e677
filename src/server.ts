// Starts one listening server from a config: opens the store, builds the app, listens, and stops
// gracefully on SIGTERM/SIGINT (stop accepting, finish requests in flight, close the store).
import closeWithGrace from 'close-with-grace'
import type { FastifyInstance } from 'fastify'
import { buildApp } from './app.js'
import type { Config } from './config.js'
import { type MetricsListener, listenForMetrics } from './plugins/metrics.js'
import { resolveSecret } from './secret.js'
import type { LimiterFactory } from './services/brute-force.js'
import { openStore } from './store/open.js'
import type { Store } from './store/types.js'

export interface RunningServer {
  app: FastifyInstance
  store: Store
  /** The separate /metrics listener, when METRICS_PORT is set. */
  metrics?: MetricsListener
  /** Stops accepting, waits for requests in flight, closes the store. */
  close(): Promise<void>
}

/** Log options: passwords and tokens never reach a log line. */
export function loggerOptions(level: string) {
  return {
    level,
    // Each top-level wildcard path costs every request: pino passes each request logger's
    // bindings through the wildcard redactor. So the fields of PUT /change-password are named
    // in full, where the service could log them, as `password` is.
    redact: {
      paths: [
        'req.headers.authorization',
        'req.body.password',
        'req.body.currentPassword',
        'req.body.newPassword',
        'password',
        'currentPassword',
        'newPassword',
        'accessToken',
        '*.password',
        '*.accessToken',
      ],
      censor: '[redacted]',
    },
  }
}

export interface StartOptions {
  /** Brute-force counter backend when REDIS_URL is unset (the cluster's shared one, say). */
  limiterFactory?: LimiterFactory
}

export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const { secret, file, generated } = resolveSecret(config.accessTokenSecret, config.dataDir)
  // ioredis, which costs resident memory (docs/performance.md, "What shaped the design"), is
  // loaded only when REDIS_URL asks for it, before the store opens, so a failure to load leaves
  // nothing open. The client connects in
  // start() below (lazyConnect), so creating it first holds no connection either.
  const limiters = config.redisUrl ? (await import('./services/redis-limiters.js')).createRedisLimiters(config.redisUrl) : undefined
  // The listener proves itself live asynchronously, possibly before the app's logger exists: a
  // change seen before then is logged as soon as it does. The first "live" says that notices
  // work at all (behind PgBouncer's transaction pooling it never comes, docs/caching.md).
  let log: FastifyInstance['log'] | undefined = undefined
  let unlogged: boolean | undefined
  let wasLive = false
  const logNotices = (live: boolean) => {
    if (!live) log!.warn('PostgreSQL account notices lost: each request reads its account version from the database until they are back')
    else if (wasLive) log!.info('PostgreSQL account notices are back: kept accounts and sessions are used without a version query again')
    else log!.info('PostgreSQL account notices are live: kept accounts and sessions are used without a version query')
    wasLive ||= live
  }
  const store = await openStore(config, {
    accountNotices: (live) => {
      if (log) logNotices(live)
      else unlogged = live
    },
  })
  let app: FastifyInstance
  try {
    app = await buildApp({ config, store, secret, logger: loggerOptions(config.logLevel), limiterFactory: limiters?.factory ?? options.limiterFactory })
  } catch (err) {
    await store.close()
    throw err
  }
  log = app.log
  if (unlogged !== undefined) logNotices(unlogged)
  await limiters?.start(app.log)
  if (generated) app.log.warn({ file }, 'ACCESS_TOKEN_SECRET is not set: generated a random secret and saved it (mode 0600)')
  else if (file) app.log.info({ file }, 'ACCESS_TOKEN_SECRET is not set: using the saved secret')
  try {
    await app.listen({ port: config.port, host: config.host })
  } catch (err) {
    // Port taken, say: release the pool and Redis too, so the process can exit with the error.
    await app.close()
    await store.close()
    await limiters?.close()
    throw err
  }
  const { port: metricsPort, host: metricsHost } = config.metrics
  let metrics: MetricsListener | undefined
  try {
    if (app.metrics && metricsPort !== undefined) metrics = await listenForMetrics(app.metrics, metricsHost, metricsPort)
  } catch (err) {
    await app.close() // e.g. METRICS_PORT in use: do not keep half a server running
    await store.close()
    await limiters?.close()
    throw err
  }
  let closing: Promise<void> | undefined
  const close = () =>
    (closing ??= (async () => {
      await metrics?.close()
      // app.close() stops accepting and waits for requests in flight, but a keep-alive
      // connection that finishes its request afterwards would stay open and hold the close:
      // close such connections as soon as they become idle.
      const sweeper = setInterval(() => app.server.closeIdleConnections(), 50)
      try {
        await app.close()
      } finally {
        clearInterval(sweeper)
      }
      await store.close()
      await limiters?.close()
    })())
  return { app, store, ...(metrics ? { metrics } : {}), close }
}

export interface GracefulCloseOptions {
  /** Longest wait for the close before the process exits anyway, with code 1. */
  delayMs?: number
  /** Signals left alone (a cluster worker leaves SIGINT to its primary). */
  skip?: closeWithGrace.AllEvents[]
}

/**
 * Closes the server gracefully on SIGTERM and SIGINT (and after an uncaught error), bounded by a
 * timeout. Call it while the server is still starting: a signal's default action kills the
 * process at once, so without handlers a stop arriving just after `listen` (to a worker the
 * primary has just replaced, say) would kill a server already accepting connections. A stop asked
 * for while it starts closes it once it has started. Returns the uninstaller, for a start that
 * fails.
 */
export function closeOnSignals(starting: Promise<RunningServer>, options: GracefulCloseOptions = {}): () => void {
  const grace = closeWithGrace(
    {
      delay: options.delayMs ?? 10_000,
      skip: options.skip ?? [],
      // close-with-grace's own lines (timeout, second signal) in the CLI's one-line form.
      logger: { error: (what: unknown) => process.stderr.write(`notes-service: ${what instanceof Error ? what.message : String(what)}\n`) },
    },
    async ({ signal, err }) => {
      const server = await starting
      if (err) server.app.log.error({ err }, 'closing after an uncaught error')
      else server.app.log.info({ signal }, 'closing gracefully')
      await server.close()
    },
  )
  return grace.uninstall
}
