// One measurement: a request mix against the service, then the same mix against the ceiling
// answering with the service's own response bytes (captured here, one request each).
import type { CeilingRoute } from './ceiling-server.js'
import { type LoadRequest, type LoadResult, type LoadShape, runLoad } from './load.js'
import type { CeilingProcess, ServiceProcess } from './processes.js'

export interface Timing {
  /** Seconds measured per target. */
  duration: number
  /** Seconds of unrecorded load before each measurement (JIT, caches, connections). */
  warmup: number
}

export interface Comparison {
  scenario: string
  shape: LoadShape
  service: LoadResult
  ceiling: LoadResult | undefined
  /** Largest service RSS seen during the measurement, bytes. */
  rss: number
}

/** Hop-by-hop and per-response headers the ceiling's node:http sets itself. */
const OWN_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding'])

/** Sends each distinct request once to the service and keeps its answer for the ceiling. */
export async function captureRoutes(serviceUrl: string, requests: LoadRequest[]): Promise<CeilingRoute[]> {
  const routes = new Map<string, CeilingRoute>()
  for (const r of requests) {
    const key = `${r.method} ${r.path}`
    if (routes.has(key)) continue
    const res = await fetch(serviceUrl + r.path, {
      method: r.method,
      headers: { ...(r.body === undefined ? {} : { 'content-type': 'application/json' }), ...r.headers },
      ...(r.body === undefined ? {} : { body: r.body }),
    })
    const body = Buffer.from(await res.arrayBuffer())
    if (res.status >= 300) throw new Error(`${key} answered ${res.status}: ${body.toString().slice(0, 200)}`)
    const headers: Record<string, string> = {}
    res.headers.forEach((value, name) => {
      if (!OWN_HEADERS.has(name)) headers[name] = value
    })
    routes.set(key, { key, status: res.status, headers, body: body.toString('base64') })
  }
  return [...routes.values()]
}

async function warmAndRun(url: string, requests: LoadRequest[], shape: LoadShape, timing: Timing): Promise<LoadResult> {
  if (timing.warmup > 0) await runLoad(url, requests, shape, timing.warmup)
  return runLoad(url, requests, shape, timing.duration)
}

export async function compare(
  scenario: string,
  requests: LoadRequest[],
  shape: LoadShape,
  service: ServiceProcess,
  ceiling: CeilingProcess | undefined,
  timing: Timing,
): Promise<Comparison> {
  let ceilingResult: LoadResult | undefined
  if (ceiling) {
    await ceiling.setRoutes(await captureRoutes(service.url, requests))
    ceilingResult = await warmAndRun(ceiling.url, requests, shape, timing)
  }
  service.rss.mark()
  const serviceResult = await warmAndRun(service.url, requests, shape, timing)
  const rss = service.rss.mark()
  const result = { scenario, shape, service: serviceResult, ceiling: ceilingResult, rss }
  process.stderr.write(`  ${scenario} [${shape.label}]: ${Math.round(serviceResult.rps)} req/s, p50 ${serviceResult.p50.toFixed(2)} ms, ` +
    `p99 ${serviceResult.p99.toFixed(2)} ms` +
    (ceilingResult ? `; ceiling ${Math.round(ceilingResult.rps)} req/s (ratio ${(serviceResult.rps / ceilingResult.rps).toFixed(2)})` : '') +
    (serviceResult.non2xx + serviceResult.errors > 0 ? `; ${serviceResult.non2xx} non-2xx, ${serviceResult.errors} errors` : '') +
    `\n`)
  return result
}
