// "No hang": attacks that try to stall the server (catastrophic and 500-character search
// patterns over 10 000 notes, slow clients sending a byte at a time, a flood of connections),
// each run while a bystander keeps making ordinary requests. The event loop's delay is measured
// in this process, where the in-process server runs.
import { connect, type Socket } from 'node:net'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import type { Store } from '../../../src/store/types.js'
import { emptyInput } from '../../../src/note-shape.js'
import { newId } from '../../../src/services/ids.js'

export interface LoopDelay {
  maxMs: number
  p99Ms: number
}

/** Runs `work` while sampling the event loop's delay every 10 ms. */
export async function measureLoopDelay<T>(work: () => Promise<T>): Promise<{ result: T; delay: LoopDelay }> {
  const histogram = monitorEventLoopDelay({ resolution: 10 })
  histogram.enable()
  try {
    const result = await work()
    return { result, delay: { maxMs: histogram.max / 1e6, p99Ms: histogram.percentile(99) / 1e6 } }
  } finally {
    histogram.disable()
  }
}

const WORDS = [
  'meeting',
  'groceries',
  'idea',
  'project',
  'call',
  'alpha',
  'budget',
  'draft',
  'travel',
  'book',
  'aaaa',
  'xyz',
]

/** Writes `count` notes of varied words for a user straight into the store (fast set-up). */
export async function seedNotes(store: Store, userId: string, count: number): Promise<void> {
  const start = Date.now() - count
  for (let i = 0; i < count; i++) {
    const words = Array.from({ length: 40 }, (_, k) => WORDS[(i * 7 + k * 13) % WORDS.length]).join(' ')
    const at = new Date(start + i).toISOString()
    // every 100th note is the classic evil input for backtracking engines
    const content = i % 100 === 0 ? 'a'.repeat(40) + '!' : words
    await store.insertNote({
      _id: newId(),
      ...emptyInput(),
      userId,
      title: `note ${i} ${WORDS[i % WORDS.length]}`,
      content,
      tags: [],
      isPinned: false,
      createdOn: at,
      updatedOn: at,
    })
  }
}

/**
 * Patterns built to make a backtracking engine take exponential time on the "evil" notes that
 * seedNotes adds (runs of 'a' followed by '!'), and 500-character ones. They match few notes:
 * a pattern that matches every note answers as much as get-all-notes does, which the stress
 * run measures separately (EVERYTHING_PATTERN).
 */
export const ATTACK_PATTERNS: readonly string[] = [
  '^(a+)+$',
  '^(a|aa)+$',
  '^(a|a?)+$',
  '(x+x+)+y',
  '(.*a){20}!',
  '(\\w+\\s?)+;$',
  '^(([a-z])+.)+[0-9]([a-z])+$',
  '(a|b|ab)*c!',
  'a?'.repeat(125) + 'a'.repeat(125),
  '(?:a*)*'.repeat(71).slice(0, 497) + 'zzz',
  '[a-z]*'.repeat(82) + '!!!!',
  '.'.repeat(500),
  '(meeting|groceries|idea|project|call|budget|draft|travel|book)'.repeat(8).slice(0, 499) + ';',
  'x'.repeat(500),
  '\\b(\\w+)\\s+\\1\\b', // a back-reference: refused with 400
  '(?=a)a', // look-ahead: refused with 400
]

/** Matches every note: the answer is the whole list, as large as get-all-notes'. */
export const EVERYTHING_PATTERN = '[a-z]*'.repeat(83)

export interface Bystander {
  /** Stops the loop; resolves with how its requests went. */
  stop(): Promise<{ requests: number; failures: number; maxMs: number }>
}

/** Keeps one ordinary client busy (GET /get-user) until stopped. */
export function startBystander(base: string, token: string): Bystander {
  let running = true
  const stats = { requests: 0, failures: 0, maxMs: 0 }
  const loop = (async () => {
    while (running) {
      const t = performance.now()
      try {
        const res = await fetch(`${base}/get-user`, {
          headers: { authorization: `Bearer ${token}` },
          signal: AbortSignal.timeout(10_000),
        })
        await res.arrayBuffer()
        if (res.status !== 200) stats.failures++
      } catch {
        stats.failures++
      }
      stats.requests++
      stats.maxMs = Math.max(stats.maxMs, performance.now() - t)
      await new Promise((r) => setTimeout(r, 5))
    }
  })()
  return {
    async stop() {
      running = false
      await loop
      return stats
    },
  }
}

/** A socket that sends `text` one byte every `intervalMs`; resolves when the server closes it. */
export function trickle(
  port: number,
  text: string,
  intervalMs: number,
): Promise<{ closedAfterMs: number; sentBytes: number; answer: string }> {
  return new Promise((resolve) => {
    const started = performance.now()
    const socket: Socket = connect(port, '127.0.0.1')
    let sent = 0
    let answer = ''
    socket.setEncoding('latin1')
    socket.on('data', (d: string) => (answer += d))
    const timer = setInterval(() => {
      if (sent < text.length && socket.writable) socket.write(text[sent++]!)
    }, intervalMs)
    socket.on('error', () => {})
    socket.on('close', () => {
      clearInterval(timer)
      resolve({ closedAfterMs: performance.now() - started, sentBytes: sent, answer })
    })
  })
}

export interface IdleConnection {
  socket: Socket
  /** Resolves with the time from connecting to the server closing it. */
  closed: Promise<number>
}

/**
 * Opens `count` idle connections; resolves once all are connected. Each one's close is watched
 * from the start: under load the first ones can be cut off before the last ones connect.
 */
export async function openIdleConnections(port: number, count: number): Promise<IdleConnection[]> {
  // In batches below the listen backlog (511): past it the kernel drops handshakes the server
  // never sees, and such client sockets stay "connected" to nobody, a client-side artefact.
  const all: IdleConnection[] = []
  for (let opened = 0; opened < count; opened += 400)
    all.push(...(await openBatch(port, Math.min(400, count - opened))))
  return all
}

function openBatch(port: number, count: number): Promise<IdleConnection[]> {
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<IdleConnection>((resolve, reject) => {
          const started = performance.now()
          const socket = connect(port, '127.0.0.1')
          const closed = new Promise<number>((done) => {
            socket.on('close', () => done(performance.now() - started))
            // never left hanging: a socket still open after 30 s is destroyed and reported as such
            setTimeout(() => socket.destroy(), 30_000).unref()
          })
          socket.on('connect', () => resolve({ socket, closed }))
          socket.on('error', reject)
          socket.resume() // read what the server sends (its 408), or the socket never sees the close
        }),
    ),
  )
}
