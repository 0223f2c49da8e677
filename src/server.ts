// Starts one listening server from a config, and closes it gracefully on SIGTERM/SIGINT.
import closeWithGrace from 'close-with-grace'
import type { FastifyInstance } from 'fastify'
import { buildApp } from './app.js'
import type { Config } from './config.js'
import { listenForMetrics } from './plugins/metrics/endpoint.js'
import { resolveSecret } from './secret.js'
import type { LimiterFactory } from './services/brute-force.js'
import { openChangeBus } from './services/change-bus/choose.js'
import { openStoreWithVersions } from './store/open.js'
import { openConfiguredBlobs } from './blobs/configured.js'
import { buildSearchIndexLogged } from './services/search-index-build.js'

const PASSWORD_FIELDS = ['password', 'currentPassword', 'newPassword']

/** Log options: passwords and tokens never reach a log line. */
export function loggerOptions(level: string) {
  return {
    level,
    // Named in full, not by top-level wildcards: pino runs every request logger's bindings through a wildcard redactor.
    redact: {
      paths: [
        'req.headers.authorization',
        ...PASSWORD_FIELDS.map((field) => `req.body.${field}`),
        ...PASSWORD_FIELDS,
        'accessToken',
        '*.password',
        '*.accessToken',
      ],
      censor: '[redacted]',
    },
  }
}

/** `limiterFactory`: the brute-force counters when REDIS_URL is unset (the cluster's shared ones, say). */
export async function startServer(config: Config, limiterFactory?: LimiterFactory) {
  const { secret, file, generated } = resolveSecret(config.accessTokenSecret, config.dataDir)
  // ioredis costs resident memory: loaded only for REDIS_URL, and before the store opens so a failure leaves nothing open.
  const limiters = config.redisUrl
    ? (await import('./services/redis-limiters.js')).createRedisLimiters(config.redisUrl)
    : undefined
  const { store, versions, exportReads } = await openStoreWithVersions(config)
  let app: FastifyInstance
  const bus = await openChangeBus(config)
  // After the store, whose migrations make the PostgreSQL blob driver's tables.
  const blobs = await openConfiguredBlobs(config)
  try {
    app = await buildApp({
      config,
      store,
      blobs,
      secret,
      logger: loggerOptions(config.logLevel),
      limiterFactory: limiters?.factory ?? limiterFactory,
      changeBus: bus,
      versions,
      exportReads,
    })
  } catch (err) {
    await bus.close()
    await blobs.close()
    await store.close()
    throw err
  }
  await limiters?.start(app.log)
  await bus.start(app.log)
  if (generated)
    app.log.warn({ file }, 'ACCESS_TOKEN_SECRET is not set: generated a random secret and saved it (mode 0600)')
  else if (file) app.log.info({ file }, 'ACCESS_TOKEN_SECRET is not set: using the saved secret')
  let metrics: Awaited<ReturnType<typeof listenForMetrics>> | undefined
  try {
    await app.listen({ port: config.port, host: config.host })
    const { port, host } = config.metrics
    if (app.metrics && port !== undefined) metrics = await listenForMetrics(app.metrics, host, port)
  } catch (err) {
    // Release the pool and Redis too, so the process can exit with the error.
    await app.close()
    await bus.close()
    await blobs.close()
    await store.close()
    await limiters?.close()
    throw err
  }
  let closing: Promise<void> | undefined
  const indexBuilt = buildSearchIndexLogged(store, app.log, () => closing !== undefined)
  const close = () =>
    (closing ??= (async () => {
      await metrics?.close()
      // A keep-alive connection that finishes a request after app.close() would hold it: end such connections once idle.
      const sweeper = setInterval(() => app.server.closeIdleConnections(), 50)
      try {
        await app.close()
      } finally {
        clearInterval(sweeper)
      }
      await bus.close()
      await blobs.close()
      await store.close()
      await indexBuilt
      await limiters?.close()
    })())
  return { app, store, changeBus: bus.driver, ...(metrics ? { metrics } : {}), close }
}

export type RunningServer = Awaited<ReturnType<typeof startServer>>

/**
 * Closes the server gracefully on SIGTERM and SIGINT but the `skip`ped ones, and after an uncaught error; exit code 1
 * past 10 s. Installed while the server starts, since a signal's default action would kill a server already accepting
 * connections: a stop asked for meanwhile closes it once started. Returns the uninstaller.
 */
export function closeOnSignals(starting: Promise<RunningServer>, skip: closeWithGrace.AllEvents[] = []): () => void {
  const grace = closeWithGrace(
    {
      delay: 10_000,
      skip,
      logger: {
        error: (what: unknown) =>
          process.stderr.write(`notes-service: ${what instanceof Error ? what.message : String(what)}\n`),
      },
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
