// Prometheus metrics (prom-client), in a registry per app so that apps built side by side (tests)
// never share counters. /metrics is served by the API's port, or only by METRICS_PORT's listener.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { BruteForceGuard } from '../services/brute-force.js'
import type { StreamMetrics } from '../services/streams.js'
import { metrics as metricsSchema } from '../schemas/metrics.js'
import type { Store } from '../store/types.js'
import { CellHistogram, type HistogramCell } from './metric-cells.js'

export type Metrics = ReturnType<typeof createMetrics>

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Metrics | undefined
  }
}

/** The route label of every request no route matched, so that scanners cannot grow the series. */
export const UNMATCHED_ROUTE = '(unmatched)'

export function createMetrics() {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const registers = [registry]
  const httpLabels = ['method', 'route', 'status_code'] as const
  const requestSeconds = new CellHistogram(
    'http_request_duration_seconds',
    'Time from receiving a request to sending its response, by route pattern and status.',
    httpLabels,
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  )
  return {
    registry,
    requests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by route pattern and status.',
      labelNames: httpLabels,
      registers,
      // Read from requestSeconds' counts before each scrape: nothing is recorded twice per request.
      collect() {
        this.reset()
        for (const cell of requestSeconds.cells()) this.inc(cell.labels, cell.count)
      },
    }),
    requestSeconds,
    storeSeconds: new CellHistogram(
      'store_query_duration_seconds',
      'Time of each Store call, by operation and outcome (ok or error).',
      ['operation', 'outcome'],
      [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
      registers,
    ),
    loginFailures: new Counter({ name: 'login_failures_total', help: 'Failed logins (wrong password or unknown email).', registers }),
    throttled: new Counter({
      name: 'throttled_requests_total',
      help: 'Requests refused with 429 by brute-force protection or the live update stream limits, by route.',
      labelNames: ['route'],
      registers,
    }),
    streamsOpen: new Gauge({ name: 'live_streams_open', help: 'Live update streams (GET /stream-changes) open on this process.', registers }),
    streamEvents: new Counter({ name: 'live_stream_events_total', help: 'Change events written to live update streams.', registers }),
    streamsEnded: new Counter({
      name: 'live_streams_ended_total',
      help: 'Live update streams ended, by reason: client, session, slow-reader, shutdown, cursor-expired.',
      labelNames: ['reason'],
      registers,
    }),
    streamsRefused: new Counter({
      name: 'live_streams_refused_total',
      help: 'Live update streams refused by a limit: account (429) or instance (503).',
      labelNames: ['limit'],
      registers,
    }),
    fanOutLag: new Histogram({
      name: 'live_stream_fanout_lag_seconds',
      help: "Time from a write's publication on the change bus to the first event it made a stream write (clocks of two hosts when it crossed instances).",
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 30],
      registers,
    }),
  }
}

/** What the live update streams record (services/streams.ts). */
export function streamMetrics(metrics: Metrics): StreamMetrics {
  return {
    opened: () => metrics.streamsOpen.inc(),
    ended: (reason) => {
      metrics.streamsOpen.dec()
      metrics.streamsEnded.inc({ reason })
    },
    refused: (limit) => metrics.streamsRefused.inc({ limit }),
    sent: (events) => metrics.streamEvents.inc(events),
    lag: (ms) => metrics.fanOutLag.observe(ms / 1000),
  }
}

/**
 * A Store whose every call (close aside) is timed into `store_query_duration_seconds`: a plain object, since a Proxy
 * costs a get trap per call. Methods are found along the prototype chain, so a store made by Object.create is timed too.
 */
export function timedStore(store: Store, metrics: Metrics): Store {
  const timed: Record<string, unknown> = {}
  for (let level: object | null = store; level && level !== Object.prototype; level = Object.getPrototypeOf(level) as object | null) {
    for (const key of Object.getOwnPropertyNames(level)) {
      const value: unknown = (store as unknown as Record<string, unknown>)[key]
      if (key in timed || key === 'constructor' || typeof value !== 'function') continue
      const call = (value as StoreCall).bind(store)
      timed[key] = key === 'close' ? call : timedCall(call, key, metrics.storeSeconds)
    }
  }
  return timed as unknown as Store
}

type StoreCall = (...args: unknown[]) => Promise<unknown>

/** `call`, observed with outcome ok or error (a synchronous throw too). */
function timedCall(call: StoreCall, operation: string, histogram: CellHistogram): StoreCall {
  // Cells made on first use: an operation never called has no series, as with prom-client.
  const cells: Partial<Record<'ok' | 'error', HistogramCell>> = {}
  const observe = (outcome: 'ok' | 'error', start: number) =>
    (cells[outcome] ??= histogram.cell({ operation, outcome })).observe((performance.now() - start) / 1000)
  return (...args) => {
    const start = performance.now()
    let pending: Promise<unknown>
    try {
      pending = Promise.resolve(call(...args))
    } catch (err) {
      observe('error', start)
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      return Promise.reject(err)
    }
    return pending.then(
      (result) => {
        observe('ok', start)
        return result
      },
      (err: unknown) => {
        observe('error', start)
        throw err
      },
    )
  }
}

/** Counts failed logins where they are recorded, whether or not throttling is on. */
export function countingGuard(guard: BruteForceGuard, metrics: Metrics): BruteForceGuard {
  return {
    ...guard,
    beginLogin: async (emailKey, client) => {
      const attempt = await guard.beginLogin(emailKey, client)
      return {
        giveBack: () => attempt.giveBack(),
        keep: () => {
          metrics.loginFailures.inc()
          return attempt.keep()
        },
      }
    },
  }
}

/**
 * Records every response into the request metrics. Call it before any route is added: each route gets an onResponse hook
 * with its pattern fixed, as Fastify builds `request.routeOptions` on each access. One app-level hook records unmatched requests.
 */
export function recordRequests(app: FastifyInstance, metrics: Metrics): void {
  const { requestSeconds, throttled } = metrics
  // Callback style: an async hook costs a promise per request.
  const recorder = (route: string) => {
    const cells = new Map<string, Map<number, HistogramCell>>()
    return (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      const status = reply.statusCode
      let byStatus = cells.get(request.method)
      if (!byStatus) cells.set(request.method, (byStatus = new Map<number, HistogramCell>()))
      let cell = byStatus.get(status)
      if (!cell) byStatus.set(status, (cell = requestSeconds.cell({ method: request.method, route, status_code: status })))
      cell.observe(reply.elapsedTime / 1000)
      if (status === 429) throttled.inc({ route })
      done()
    }
  }
  app.addHook('onRoute', (route) => {
    // A new array, never a push: Fastify copies a GET route's options for its HEAD route.
    const hook = recorder(route.url)
    const own = route.onResponse
    route.onResponse = own === undefined ? [hook] : [...(Array.isArray(own) ? own : [own]), hook]
  })
  const recordUnmatched = recorder(UNMATCHED_ROUTE)
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) recordUnmatched(request, reply, done)
    else done()
  })
}

/** /metrics on the API's port, when METRICS_PORT is unset. */
export function registerMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.get('/metrics', {
    schema: metricsSchema,
    handler: async (_request, reply) => {
      const text = await metrics.registry.metrics()
      return reply.type(metrics.registry.contentType).send(text)
    },
  })
}

/** METRICS_PORT's listener: GET /metrics and nothing else. */
export async function listenForMetrics(metrics: Metrics, host: string, port: number) {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]
    if (request.method !== 'GET' || (path !== '/metrics' && path !== '/metrics/')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not Found')
      return
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Internal Server Error'),
    )
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => resolve())
  })
  const address = server.address() as AddressInfo
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return {
    url: `http://${shownHost}:${address.port}`,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())))
    },
  }
}
