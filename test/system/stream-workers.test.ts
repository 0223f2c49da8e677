// `serve --workers 2` on SQLite: the primary relays the change bus between the workers, so a write served by one
// reaches a stream held by the other; and when the worker holding a stream is killed mid-stream, the client reconnects
// with Last-Event-ID and, across both streams, receives every acknowledged write exactly once.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { once } from 'node:events'
import { type ChildServer, startChild } from '../support/child-server.js'
import { type SseStream, changeOf, openStream } from '../support/sse.js'

/** A request on a connection of its own (no keep-alive pool), so that requests go to both workers. */
function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const headers: Record<string, string> = {}
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (token) headers.authorization = `Bearer ${token}`
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { method, headers, agent: false }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as Record<string, unknown> })
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)))
        }
      })
      // A worker killed mid-answer: the response is cut without an 'end'.
      res.on('close', () => reject(new Error('the connection closed before the answer ended')))
      res.on('error', reject)
    })
    req.on('error', reject)
    // Never expected (test/system/worker-handover.test.ts): a connection to a killed worker is closed.
    req.setTimeout(5000, () => req.destroy(new Error('no answer within 5 s')))
    req.end(body === undefined ? undefined : JSON.stringify(body))
  })
}

/** The primary's workers. */
const workersOf = (primary: number) =>
  execFileSync('ps', ['-o', 'pid=', '--ppid', String(primary)], { encoding: 'utf8' })
    .split('\n')
    .map((l) => Number(l.trim()))
    .filter((pid) => pid > 0)

const hexPort = (port: number) => port.toString(16).toUpperCase().padStart(4, '0')

/** The worker holding the server side of the connection whose client port is `clientPort` (Linux /proc). */
function workerHolding(primary: number, serverPort: number, clientPort: number): number {
  const line = readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .find((f) => f[1]?.endsWith(`:${hexPort(serverPort)}`) && f[2]?.endsWith(`:${hexPort(clientPort)}`))
  assert.ok(line, 'the connection is in /proc/net/tcp')
  const socket = `socket:[${line[9]}]`
  for (const pid of workersOf(primary)) {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === socket) return pid
      } catch {
        // closed meanwhile
      }
    }
  }
  assert.fail('no worker holds the connection')
}

/**
 * Resolves once each of the primary's two workers has accepted a connection. The server answers as soon as one worker
 * listens; while the other still starts, killing the first leaves no process listening, and node:cluster closes the
 * port until a worker listens again (docs/operations.md, "Workers"): a reconnection then is refused.
 */
async function untilBothWorkersAccept(server: ChildServer): Promise<void> {
  const seen = new Set<number>()
  for (const deadline = Date.now() + 60_000; seen.size < 2;) {
    assert.ok(Date.now() < deadline, `both workers accept connections (seen ${[...seen].join(', ') || 'none'})`)
    const socket = connect(server.port, '127.0.0.1')
    await once(socket, 'connect')
    // An answer proves a worker accepted the connection, so /proc names the worker holding it.
    socket.write('GET /ready-probe HTTP/1.1\r\nHost: localhost\r\n\r\n')
    await once(socket, 'data')
    seen.add(workerHolding(server.pid, server.port, socket.localPort!))
    socket.destroy()
  }
}

describe('live updates with serve --workers 2 on SQLite', { timeout: 120_000 }, () => {
  let dataDir: string
  let server: ChildServer
  const streams: SseStream[] = []
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'notes-stream-workers-'))
    // Heartbeats (and their feed reads) out of the way: what arrives came through the bus.
    server = await startChild({ dataDir, env: { WORKERS: '2', STREAM_HEARTBEAT_MS: '60000' } })
    await untilBothWorkersAccept(server)
  })
  after(async () => {
    streams.forEach((s) => s.close())
    await server?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })
  const stream = async (options: Parameters<typeof openStream>[1]) => {
    const s = await openStream(server.base, options)
    streams.push(s)
    assert.equal(s.status, 200)
    return s
  }
  const account = async () => {
    const reg = await call(server.base, 'POST', '/create-account', {
      fullName: 'Ada',
      email: `ada.${Date.now()}@example.com`,
      password: 'correct horse battery',
    })
    return reg.json.accessToken as string
  }

  it('sends writes served by either worker to a stream held by one of them', async () => {
    const token = await account()
    const s = await stream({ token })
    // The kernel deals new connections to either worker, so these writes land on both, mostly. Each must arrive before the
    // next is made: a write of the stream's own worker would otherwise bring the other's along when it reads the feed.
    for (let i = 0; i < 6; i++) {
      const note = (await call(server.base, 'POST', '/add-note', { title: `n${i}`, content: 'c' }, token)).json
        .note as { _id: string }
      await s.waitForEvents(i + 1, 5000)
      assert.equal(changeOf(s.events[i]!).noteId, note._id)
    }
    s.close()
  })

  it('misses nothing when the worker holding the stream is killed: the client resumes with Last-Event-ID', async () => {
    const token = await account()
    const since = (await call(server.base, 'GET', '/get-changes', undefined, token)).json.cursor as string
    const first = await stream({ token, since })
    const acknowledged: string[] = []
    let writing = true
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        try {
          const added = await call(server.base, 'POST', '/add-note', { title: `w${i}`, content: 'c' }, token)
          if (added.status === 200) acknowledged.push((added.json.note as { _id: string })._id)
        } catch {
          // The connection went to the killed worker: not acknowledged, so the test does not count on it.
        }
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    })()
    await first.waitForEvents(5, 10_000)
    const victim = workerHolding(server.pid, server.port, first.localPort)
    process.kill(victim, 'SIGKILL')
    assert.equal(await first.ended, 'error', 'the stream was cut, not ended')
    const lastEventId = first.lastEventId()
    assert.ok(lastEventId)
    // As EventSource does: again, from the last event received.
    const second = await stream({ token, lastEventId })
    // Writes go on after the reconnection (past one the primary may have dealt to the killed worker).
    const atReconnect = acknowledged.length
    for (const deadline = Date.now() + 20_000; acknowledged.length < atReconnect + 10 && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    writing = false
    await writer
    const received = () => [...first.events, ...second.events].map((e) => changeOf(e).noteId)
    const deadline = Date.now() + 10_000
    while (!acknowledged.every((id) => received().includes(id)) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50))
    assert.deepEqual(
      acknowledged.filter((id) => !received().includes(id)),
      [],
      'every acknowledged write arrived',
    )
    assert.equal(new Set(received()).size, received().length, 'none arrived twice')
    assert.ok(second.events.length > 0, 'writes went on after the kill')
    // And what arrived is the listing: nothing else, nothing less.
    const listed = (
      (await call(server.base, 'GET', '/get-all-notes', undefined, token)).json.notes as Array<{ _id: string }>
    ).map((n) => n._id)
    assert.deepEqual(new Set(received()), new Set(listed))
  })
})
