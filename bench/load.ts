// Drives one target (the service or the ceiling) with autocannon over loopback. Every run is
// bounded in time (duration) and, as a safety net, stopped by a timer shortly after it.
// autocannon's own histogram keeps whole milliseconds, too coarse for sub-millisecond answers,
// so latencies are recorded here, in microseconds, from its per-response event.
import { createHistogram } from 'node:perf_hooks'
import autocannon from 'autocannon'

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'

export interface LoadRequest {
  method: Method
  /** Path with query string, e.g. /search-notes?query=grocery */
  path: string
  body?: string
  headers?: Record<string, string>
}

export interface LoadShape {
  label: string
  connections: number
  pipelining: number
}

/** 32 connections without pipelining (realistic), and the shape of fastify/benchmarks. */
export const REALISTIC: LoadShape = { label: '32 conn', connections: 32, pipelining: 1 }
export const PIPELINED: LoadShape = { label: '100 conn × 10 pipelined', connections: 100, pipelining: 10 }
export const SERIAL: LoadShape = { label: '1 conn', connections: 1, pipelining: 1 }

export interface LoadResult {
  /** Successful (2xx) responses per second. */
  rps: number
  /** Latency of 2xx responses, milliseconds. */
  p50: number
  p99: number
  ok: number
  non2xx: number
  errors: number
}

/** Sums several runs against one target (the bench alternates service and ceiling rounds). */
export class LoadTally {
  readonly micros = createHistogram()
  ok = 0
  non2xx = 0
  errors = 0
  seconds = 0
  result(): LoadResult {
    const some = this.ok > 0
    return {
      rps: this.ok / Math.max(this.seconds, 0.001),
      p50: some ? this.micros.percentile(50) / 1000 : NaN,
      p99: some ? this.micros.percentile(99) / 1000 : NaN,
      ok: this.ok,
      non2xx: this.non2xx,
      errors: this.errors,
    }
  }
}

export async function runLoad(
  url: string,
  requests: LoadRequest[],
  shape: LoadShape,
  durationSeconds: number,
  tally = new LoadTally(),
): Promise<LoadResult> {
  let settle!: (err: Error | null, result: autocannon.Result) => void
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    settle = (err, result) => (err ? reject(err) : resolve(result))
  })
  const instance = autocannon(
    {
      url,
      connections: shape.connections,
      pipelining: shape.pipelining,
      duration: durationSeconds,
      timeout: 10,
      requests: requests.map((r) => ({
        method: r.method,
        path: r.path,
        ...(r.body === undefined ? {} : { body: r.body }),
        headers: { ...(r.body === undefined ? {} : { 'content-type': 'application/json' }), ...r.headers },
      })),
    },
    (err: Error | null, result) => settle(err, result),
  )
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (statusCode >= 200 && statusCode < 300) tally.micros.record(Math.max(1, Math.round(responseTime * 1000)))
  })
  const safety = setTimeout(() => instance.stop(), (durationSeconds + 15) * 1000)
  try {
    const result = await done
    await waitUntilIdle(url, requests[0])
    tally.ok += result['2xx']
    tally.non2xx += result.non2xx
    tally.errors += result.errors
    tally.seconds += result.duration
    return tally.result()
  } finally {
    clearTimeout(safety)
  }
}

/**
 * Waits until the target has answered everything still queued: requests it read before the
 * load generator stopped (up to 1 000 when pipelined, or logins waiting for an argon2 slot) would
 * otherwise slow the next measurement. The probe is the load's own first request, so it queues
 * behind the same work (an unknown path would skip the argon2 queue) and is answered after it.
 */
export async function waitUntilIdle(url: string, probe: LoadRequest | undefined, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  const send = async (request: LoadRequest) => {
    const began = performance.now()
    const res = await fetch(url + request.path, {
      method: request.method,
      headers: { ...(request.body === undefined ? {} : { 'content-type': 'application/json' }), ...request.headers },
      ...(request.body === undefined ? {} : { body: request.body }),
      signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())),
    })
    await res.arrayBuffer()
    return performance.now() - began
  }
  if (probe) await send(probe)
  // Requests of closed connections may still be running: wait until the event loop answers a
  // trivial request (an unknown path) quickly twice in a row.
  let quick = 0
  while (quick < 2 && Date.now() < deadline) {
    quick = (await send({ method: 'GET', path: '/bench-idle-probe' })) < 50 ? quick + 1 : 0
    if (quick < 2) await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Runs several loads at once (e.g. logins beside reads) and returns their results in order. */
export function runLoadsTogether(
  url: string,
  loads: { requests: LoadRequest[]; shape: LoadShape }[],
  durationSeconds: number,
): Promise<LoadResult[]> {
  return Promise.all(loads.map((l) => runLoad(url, l.requests, l.shape, durationSeconds)))
}
