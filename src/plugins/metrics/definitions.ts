// What is measured: the Prometheus metrics (prom-client), in a registry per app so that apps built side by side (tests)
// never share counters. Where they are recorded is hooks.ts; how they are served, endpoint.ts.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import { CellHistogram } from './cells.js'

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
    loginFailures: new Counter({
      name: 'login_failures_total',
      help: 'Failed logins (wrong password or unknown email).',
      registers,
    }),
    throttled: new Counter({
      name: 'throttled_requests_total',
      help: 'Requests refused with 429 by brute-force protection or the live update stream limits, by route.',
      labelNames: ['route'],
      registers,
    }),
    streamsOpen: new Gauge({
      name: 'live_streams_open',
      help: 'Live update streams (GET /stream-changes) open on this process.',
      registers,
    }),
    streamEvents: new Counter({
      name: 'live_stream_events_total',
      help: 'Change events written to live update streams.',
      registers,
    }),
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
    attachmentUploads: new Counter({
      name: 'attachment_uploads_total',
      help: 'Attachment uploads, by outcome: stored, too_large (413), over_quota (403), refused (400), failed (any other).',
      labelNames: ['outcome'],
      registers,
    }),
    attachmentUploadBytes: new Counter({
      name: 'attachment_upload_bytes_total',
      help: 'Bytes stored by attachment uploads.',
      registers,
    }),
    attachmentDownloads: new Counter({
      name: 'attachment_downloads_total',
      help: 'Attachment file answers with a body (200 or 206; not 304 or HEAD).',
      registers,
    }),
    attachmentDownloadBytes: new Counter({
      name: 'attachment_download_bytes_total',
      help: "Bytes of those answers' bodies: a file's size, or a range's length.",
      registers,
    }),
    attachmentThumbnails: new Counter({
      name: 'attachment_thumbnails_total',
      help: 'Thumbnails served, by source: made (a picture decoded) or cache.',
      labelNames: ['source'],
      registers,
    }),
  }
}
