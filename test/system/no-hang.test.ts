// No hang: catastrophic and 500-character search patterns over 10 000 notes, slow
// clients that send headers or bodies a byte at a time, and a flood of connections. Meanwhile
// other clients keep being served, the event loop never stalls, and slow clients are cut off by
// the configured timeouts. The loop-delay bound here is generous (LOOP_DELAY_BOUND_MS): on a
// shared 2-core machine the process alone can be descheduled for over 100 ms. The figure itself
// (/healthz p99 under attack, against none, in one run) is the search-isolation bench's
// (bench/README.md; docs/performance.md).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type Account, type Harness, register, startHarness } from '../support/harness.js'
import {
  ATTACK_PATTERNS,
  measureLoopDelay,
  openIdleConnections,
  seedNotes,
  startBystander,
  trickle,
} from '../support/scenarios/no-hang.js'

const REQUEST_TIMEOUT_MS = 1000
/** A stall of the event loop (a search or a page read holding it), with room for the scheduler. */
const LOOP_DELAY_BOUND_MS = 300
// Longer than the request timeout: idle flood sockets are cut by the request timeout (408), and a
// short idle timeout would race with the test clients' own kept-alive sockets.
const CONNECTION_TIMEOUT_MS = 10_000

describe('no hang (http)', () => {
  let h: Harness
  let a: Account
  let bystander: Account
  let base: string
  let port: number
  before(async () => {
    h = await startHarness('http', {
      config: { requestTimeoutMs: REQUEST_TIMEOUT_MS, connectionTimeoutMs: CONNECTION_TIMEOUT_MS },
    })
    port = (h.app.server.address() as { port: number }).port
    base = `http://127.0.0.1:${port}`
    a = await register(h.client, 'Attacker')
    bystander = await register(h.client, 'Bystander')
    await seedNotes(h.store, a.userId, 10_000)
  })
  after(async () => h.close())

  it('searches 10 000 notes with catastrophic and 500-character patterns without stalling anyone', async () => {
    const others = startBystander(base, bystander.token)
    const { result: statuses, delay } = await measureLoopDelay(async () => {
      const seen: number[] = []
      for (const pattern of ATTACK_PATTERNS) {
        const res = await fetch(`${base}/search-notes?query=${encodeURIComponent(pattern)}`, {
          headers: { authorization: `Bearer ${a.token}` },
        })
        await res.arrayBuffer() // read, not parsed: the client's own work stays out of the measurement
        seen.push(res.status)
      }
      return seen
    })
    const served = await others.stop()
    assert.ok(
      statuses.every((s) => s === 200 || s === 400),
      `statuses ${statuses.join(',')}`,
    )
    assert.equal(statuses.at(-1), 400, 'look-around is refused')
    assert.equal(served.failures, 0)
    assert.ok(served.requests > 0)
    assert.ok(delay.maxMs < LOOP_DELAY_BOUND_MS, `event-loop delay reached ${delay.maxMs.toFixed(1)} ms`)
  })

  it('cuts off clients that send headers or a body one byte at a time', async () => {
    const others = startBystander(base, bystander.token)
    const { result, delay } = await measureLoopDelay(() =>
      Promise.all([
        trickle(port, `GET /get-all-notes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${a.token}\r\n\r\n`, 50),
        trickle(
          port,
          'POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n' +
            '{"email":"x"'.padEnd(500, ' '),
          20,
        ),
      ]),
    )
    const served = await others.stop()
    for (const slow of result) {
      // cut off: well before it could finish, and within a few timeout periods
      assert.ok(slow.closedAfterMs < REQUEST_TIMEOUT_MS * 4, `closed after ${slow.closedAfterMs.toFixed(0)} ms`)
      assert.ok(
        slow.closedAfterMs >= REQUEST_TIMEOUT_MS * 0.9,
        `closed too early, after ${slow.closedAfterMs.toFixed(0)} ms`,
      )
      assert.match(slow.answer, /^HTTP\/1\.1 408 [^]*\{"error":true,"message":"[^"]+"\}$/)
    }
    assert.equal(served.failures, 0)
    assert.ok(delay.maxMs < LOOP_DELAY_BOUND_MS, `event-loop delay reached ${delay.maxMs.toFixed(1)} ms`)
  })

  it('advertises a keep-alive time no longer than the server keeps an idle socket open', async () => {
    const res = await fetch(`${base}/get-user`, { headers: { authorization: `Bearer ${bystander.token}` } })
    await res.arrayBuffer()
    const advertised = Number(/timeout=(\d+)/.exec(res.headers.get('keep-alive') ?? '')?.[1])
    // A client that trusts a longer hint reuses sockets the server has already closed.
    assert.ok(advertised * 1000 <= CONNECTION_TIMEOUT_MS, `Keep-Alive: timeout=${advertised}`)
  })

  it('keeps serving through a flood of 1000 idle connections, and closes them after the request timeout', async () => {
    const connections = await openIdleConnections(port, 1000)
    const res = await h.client.request('GET', '/get-all-notes', { token: bystander.token })
    assert.equal(res.status, 200)
    const times = await Promise.all(connections.map((c) => c.closed))
    assert.ok(
      Math.max(...times) < REQUEST_TIMEOUT_MS * 4,
      `last idle connection closed after ${Math.max(...times).toFixed(0)} ms`,
    )
  })
})
