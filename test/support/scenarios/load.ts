// "Load held": a mixed load at N connections against a child server for a fixed time: every
// request must get its 200 (no errors, no timeouts), RSS must not keep growing after warm-up, and the
// server's open file descriptors must come back to where they were.
import { Agent, request } from 'node:http'
import { startChild, fdCountOf, rssOf } from '../child-server.js'
import type { StoreUnderTest } from '../stores.js'
import { ensureBuilt } from '../web.js'
import { tempDir } from '../temp.js'

export interface LoadOptions {
  store: StoreUnderTest
  connections: number
  durationMs: number
  /** Share of the duration treated as warm-up (not judged for memory growth). */
  warmupShare?: number
  users?: number
}

export interface LoadResult {
  requests: number
  errors: number
  timeouts: number
  /** A few of the errors, for the failure message. */
  errorSamples: string[]
  requestsPerSecond: number
  p99Ms: number
  rssAfterWarmupMb: number
  rssEndMb: number
  rssMaxMb: number
  /**
   * Growth of the RSS's lower envelope after warm-up: the lowest sample of the last third of the
   * judged span minus the lowest of its first third. RSS rises between collections and falls at
   * each, by 20-50 MB within a second on PostgreSQL (seen on a 2-core machine), so the last
   * sample minus the first mostly read where in that sawtooth each happened to fall: 21-77 MB
   * over nine 5-second runs of the same code (four over the 48 MB bound), against 20-28 MB for
   * this figure over five of them. A leak raises the troughs as well. Over 40 s the same load
   * levelled off at 260-295 MB.
   */
  rssGrowthMb: number
  /** [ms since the load started, RSS MB] every 200 ms, for failure messages. */
  rssSeriesMb: Array<[number, number]>
  fdsBefore: number
  fdsAfter: number
}

interface Res {
  status: number
  body: string
}

function call(agent: Agent, port: number, method: string, path: string, token: string, body?: unknown): Promise<Res> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (d: string) => (text += d))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
        res.on('error', reject)
      },
    )
    req.setTimeout(10_000, () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })))
    req.on('error', reject)
    req.end(payload)
  })
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10

/** The lowest of the last third of `samples` minus the lowest of the first third (0 when too few). */
export function troughGrowth(samples: number[]): number {
  const third = Math.floor(samples.length / 3)
  if (third === 0) return 0
  return Math.min(...samples.slice(-third)) - Math.min(...samples.slice(0, third))
}

/**
 * Runs the load against the service as `npm start` runs it: bin/notes-service on the build, with
 * the launcher's heap and malloc settings. Memory is judged on that process only: under tsx each
 * search thread loads the TypeScript loader again, and the same load peaked near 300 MB instead
 * of 140-160 MB (docs/testing.md).
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  ensureBuilt()
  const tmp = tempDir(`notes-load-${options.store.name}-`)
  const server = await startChild({
    dataDir: tmp.path,
    env: { ...options.store.childEnv(), LOG_LEVEL: 'error' },
    launcher: true,
  })
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections })
  try {
    const tokens: string[] = []
    for (let i = 0; i < (options.users ?? 8); i++) {
      const email = `load.${process.pid}.${Date.now()}.${i}@example.com`
      const res = await call(agent, server.port, 'POST', '/create-account', '', {
        fullName: `Load ${i}`,
        email,
        password: 'load test password',
      })
      tokens.push((JSON.parse(res.body) as { accessToken: string }).accessToken)
    }
    // The search thread a first search starts (ended after a minute idle) belongs to the baseline.
    await call(agent, server.port, 'GET', '/search-notes?query=start', tokens[0] ?? '')
    agent.destroy() // the baseline is taken with no client connection open
    await new Promise((r) => setTimeout(r, 300))
    const fdsBefore = fdCountOf(server.pid)
    const loadAgent = new Agent({ keepAlive: true, maxSockets: options.connections })
    const latencies: number[] = []
    const result = { requests: 0, errors: 0, timeouts: 0, errorSamples: [] as string[] }
    const rss: Array<[number, number]> = []
    const started = performance.now()
    const end = started + options.durationMs
    const sampler = setInterval(() => rss.push([performance.now() - started, rssOf(server.pid)]), 200)

    const worker = async (w: number) => {
      const token = tokens[w % tokens.length]!
      const mine: string[] = []
      let n = 0
      while (performance.now() < end) {
        n++
        const r = Math.random()
        const t = performance.now()
        let op = ''
        try {
          let res: Res
          if (r < 0.25 || mine.length === 0) {
            op = 'add'
            res = await call(loadAgent, server.port, 'POST', '/add-note', token, {
              title: `w${w} n${n}`,
              content: `load note ${n} `.repeat(10),
              tags: ['load'],
            })
            if (res.status === 200) mine.push((JSON.parse(res.body) as { note: { _id: string } }).note._id)
          } else if (r < 0.5) {
            op = 'list'
            res = await call(loadAgent, server.port, 'GET', '/get-all-notes', token)
          } else if (r < 0.6) {
            op = 'search'
            res = await call(loadAgent, server.port, 'GET', `/search-notes?query=n${n % 10}`, token)
          } else if (r < 0.7) {
            op = 'get-user'
            res = await call(loadAgent, server.port, 'GET', '/get-user', token)
          } else if (r < 0.8) {
            op = 'edit'
            res = await call(loadAgent, server.port, 'PUT', `/edit-note/${mine[n % mine.length]}`, token, {
              content: `edited ${n}`,
            })
          } else if (r < 0.9) {
            op = 'pin'
            res = await call(loadAgent, server.port, 'PUT', `/update-note-pinned/${mine[n % mine.length]}`, token, {
              isPinned: n % 2 === 0,
            })
          } else {
            op = 'delete'
            res = await call(loadAgent, server.port, 'DELETE', `/delete-note/${mine.pop()}`, token)
          }
          // Each worker owns its notes, so every answer must be a 200.
          if (res.status !== 200) {
            result.errors++
            if (result.errorSamples.length < 5)
              result.errorSamples.push(`${op} ${res.status} ${res.body.slice(0, 120)}`)
          }
        } catch (err) {
          if ((err as { code?: string }).code === 'TIMEOUT') result.timeouts++
          else result.errors++
          if (result.errorSamples.length < 5) result.errorSamples.push(`${op} ${String(err)}`)
        }
        result.requests++
        latencies.push(performance.now() - t)
        if (mine.length > 20) mine.shift()
      }
    }
    // Workers share users in pairs at most, and each tracks only the notes it created itself.
    await Promise.all(Array.from({ length: options.connections }, (_, w) => worker(w)))
    const elapsed = performance.now() - started
    clearInterval(sampler)
    loadAgent.destroy()
    await new Promise((r) => setTimeout(r, 500))
    const fdsAfter = fdCountOf(server.pid)
    const warmupEnd = options.durationMs * (options.warmupShare ?? 0.3)
    const afterWarmup = rss.filter(([t]) => t >= warmupEnd).map(([, v]) => v)
    latencies.sort((a, b) => a - b)
    return {
      ...result,
      requestsPerSecond: Math.round(result.requests / (elapsed / 1000)),
      p99Ms: Math.round(latencies[Math.floor(latencies.length * 0.99)] ?? 0),
      rssAfterWarmupMb: mb(afterWarmup[0] ?? 0),
      rssEndMb: mb(afterWarmup.at(-1) ?? 0),
      rssMaxMb: mb(Math.max(...afterWarmup)),
      rssGrowthMb: mb(troughGrowth(afterWarmup)),
      rssSeriesMb: rss.map(([t, v]) => [Math.round(t), mb(v)]),
      fdsBefore,
      fdsAfter,
    }
  } finally {
    agent.destroy()
    await server.stop()
    tmp.remove()
  }
}
