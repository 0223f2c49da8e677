// Where the metrics are recorded: a hook on every route, a wrapper around every Store call and around the brute-force
// guard, and what the live update streams report.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AttachmentMetrics } from '../../services/attachments.js'
import type { BruteForceGuard } from '../../services/brute-force.js'
import type { StreamMetrics } from '../../services/streams.js'
import type { Store } from '../../store/types.js'
import type { CellHistogram, HistogramCell } from './cells.js'
import { type Metrics, UNMATCHED_ROUTE } from './definitions.js'

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

/** What the attachment endpoints record (src/routes/attachments.ts, src/services/thumbnails.ts). */
export function attachmentMetrics(metrics: Metrics): AttachmentMetrics {
  return {
    uploaded: (outcome, bytes) => {
      metrics.attachmentUploads.inc({ outcome })
      if (bytes > 0) metrics.attachmentUploadBytes.inc(bytes)
    },
    downloaded: (bytes) => {
      metrics.attachmentDownloads.inc()
      if (bytes > 0) metrics.attachmentDownloadBytes.inc(bytes)
    },
    thumbnail: (source) => metrics.attachmentThumbnails.inc({ source }),
  }
}

/**
 * A Store whose every call (close aside) is timed into `store_query_duration_seconds`: a plain object, since a Proxy
 * costs a get trap per call. Methods are found along the prototype chain, so a store made by Object.create is timed too.
 */
export function timedStore(store: Store, metrics: Metrics): Store {
  const timed: Record<string, unknown> = {}
  for (
    let level: object | null = store;
    level && level !== Object.prototype;
    level = Object.getPrototypeOf(level) as object | null
  ) {
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
      if (!cell)
        byStatus.set(status, (cell = requestSeconds.cell({ method: request.method, route, status_code: status })))
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
