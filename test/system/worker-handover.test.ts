// `serve --workers 2`: a worker killed while connections keep arriving. Every connection a client opens is answered,
// or closed, never left open with no one to answer it: the client's own timeout counts as a failure, not as a pass.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type ChildServer, startChild } from '../support/child-server.js'

/** Far above any answer of /healthz, even on a busy machine: past it the connection is taken as never answered. */
const CLIENT_TIMEOUT_MS = 15_000

type Outcome = 'answered' | 'closed' | 'no answer'

/** One GET /healthz on a connection of its own (no keep-alive pool), so that every request is a new connection to hand over. */
function probe(base: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = request(new URL('/healthz', base), { agent: false }, (res) => {
      res.resume()
      res.on('end', () => resolve('answered'))
      res.on('close', () => resolve('closed'))
    })
    // Refused, reset or closed before an answer: the client knows at once and can try again.
    req.on('error', () => resolve('closed'))
    req.setTimeout(CLIENT_TIMEOUT_MS, () => {
      resolve('no answer')
      req.destroy()
    })
    req.end()
  })
}

/** The workers that have started serving: a worker killed before that stops the whole service (src/cluster.ts). */
function servingWorkers(server: ChildServer): number[] {
  const listening = new Set(
    [...server.output().matchAll(/"pid":(\d+)[^\n]*Server listening at/g)].map((m) => Number(m[1])),
  )
  let children: number[] = []
  try {
    children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(server.pid)], { encoding: 'utf8' })
      .split('\n')
      .map((l) => Number(l.trim()))
      .filter((pid) => pid > 0)
  } catch {
    // ps exits 1 when the primary has no children at the moment
  }
  return children.filter((pid) => listening.has(pid))
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('serve --workers 2: a worker killed while connections are handed over', { timeout: 300_000 }, () => {
  let dataDir: string
  let server: ChildServer
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'notes-worker-handover-'))
    // At the info level each worker logs when it listens.
    server = await startChild({ dataDir, env: { WORKERS: '2', LOG_LEVEL: 'info' } })
  })
  after(async () => {
    await server?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('answers or closes every connection, through 6 SIGKILLs of a worker under a stream of new connections', async () => {
    const outcomes: Record<Outcome, number> = { answered: 0, closed: 0, 'no answer': 0 }
    let running = true
    const clients = Array.from({ length: 16 }, async () => {
      while (running) outcomes[await probe(server.base)]++
    })
    let kills = 0
    for (let round = 0; round < 6; round++) {
      // Both workers serving again (the primary forks a new one for the killed one), and answering.
      for (let deadline = Date.now() + 60_000; servingWorkers(server).length < 2 && Date.now() < deadline;)
        await pause(100)
      const answered = outcomes.answered
      for (let deadline = Date.now() + 30_000; outcomes.answered < answered + 50 && Date.now() < deadline;)
        await pause(20)
      const [victim] = servingWorkers(server)
      assert.ok(victim, 'a worker to kill')
      process.kill(victim, 'SIGKILL')
      kills++
    }
    await pause(500)
    running = false
    await Promise.all(clients)
    assert.equal(kills, 6)
    assert.ok(outcomes.answered > 300, `requests were answered between the kills: ${JSON.stringify(outcomes)}`)
    assert.equal(outcomes['no answer'], 0, `connections left unanswered: ${JSON.stringify(outcomes)}`)
  })
})
