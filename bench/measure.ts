// One measurement: a request mix against the service, then the same mix against the ceiling
// answering with the service's own response bytes (captured here, one request each).
import type { CeilingRoute } from './ceiling-server.js'
import { type LoadRequest, type LoadResult, type LoadShape, LoadTally, runLoad } from './load.js'
import type { CeilingProcess, ServiceProcess } from './processes.js'

/** The middle value (the upper of the two middle ones for an even count); NaN for none. */
export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN

export interface Timing {
  /** Seconds measured per target, split into `rounds` that alternate with the ceiling's. */
  duration: number
  rounds?: number
  /** Seconds of unrecorded load before each measurement (JIT, caches, connections). */
  warmup: number
}

export interface Comparison {
  scenario: string
  shape: LoadShape
  service: LoadResult
  ceiling: LoadResult | undefined
  /** The bare-Fastify floor answering the same bytes (only for the scenarios that ask for it). */
  floor?: LoadResult
  /** Largest service RSS seen during the measurement, bytes. */
  rss: number
}

/** Hop-by-hop and per-response headers the ceiling's node:http sets itself. */
const OWN_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding'])

/** Sends each distinct request once to the service and keeps its answer for the ceiling. */
async function captureRoutes(serviceUrl: string, requests: LoadRequest[]): Promise<CeilingRoute[]> {
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

export async function compare(
  scenario: string,
  requests: LoadRequest[],
  shape: LoadShape,
  service: ServiceProcess,
  ceiling: CeilingProcess | undefined,
  timing: Timing,
  /** The bare-Fastify floor, measured in the same rounds when given. */
  floor?: CeilingProcess,
): Promise<Comparison> {
  const routes = ceiling || floor ? await captureRoutes(service.url, requests) : []
  if (ceiling) await ceiling.setRoutes(routes)
  if (floor) await floor.setRoutes(routes)
  // Service and ceiling take turns, so a change in the machine's other load hits both alike.
  const rounds = timing.rounds ?? 1
  const slice = timing.duration / rounds
  const serviceTally = new LoadTally()
  const ceilingTally = new LoadTally()
  const floorTally = new LoadTally()
  if (timing.warmup > 0) {
    if (ceiling) await runLoad(ceiling.url, requests, shape, timing.warmup)
    if (floor) await runLoad(floor.url, requests, shape, timing.warmup)
    await runLoad(service.url, requests, shape, timing.warmup)
  }
  service.rss.mark()
  for (let i = 0; i < rounds; i++) {
    if (ceiling) await runLoad(ceiling.url, requests, shape, slice, ceilingTally)
    if (floor) await runLoad(floor.url, requests, shape, slice, floorTally)
    await runLoad(service.url, requests, shape, slice, serviceTally)
  }
  const rss = service.rss.mark()
  const serviceResult = serviceTally.result()
  const ceilingResult = ceiling ? ceilingTally.result() : undefined
  const result = {
    scenario,
    shape,
    service: serviceResult,
    ceiling: ceilingResult,
    rss,
    ...(floor ? { floor: floorTally.result() } : {}),
  }
  process.stderr.write(
    `  ${scenario} [${shape.label}]: ${Math.round(serviceResult.rps)} req/s, p50 ${serviceResult.p50.toFixed(2)} ms, ` +
      `p99 ${serviceResult.p99.toFixed(2)} ms` +
      (ceilingResult
        ? `; ceiling ${Math.round(ceilingResult.rps)} req/s (ratio ${(serviceResult.rps / ceilingResult.rps).toFixed(2)})`
        : '') +
      (serviceResult.non2xx + serviceResult.errors > 0
        ? `; ${serviceResult.non2xx} non-2xx, ${serviceResult.errors} errors`
        : '') +
      `\n`,
  )
  return result
}
