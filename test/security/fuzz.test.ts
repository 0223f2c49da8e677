// Bad input never breaks it: thousands of generated requests through inject and over
// a real socket (chunked bodies, raw bytes); no 5xx, every answer in the contract's shape, the
// server still serves afterwards, and no prototype is polluted. The long run: npm run test:stress.
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { type Account, type Harness, addNote, register, startHarness } from '../support/harness.js'
import { type FuzzTarget, fuzz, injectSender, socketSender } from '../support/scenarios/fuzz.js'

const RUNS = { inject: 2000, http: 500 } as const

for (const mode of ['inject', 'http'] as const) {
  describe(`fuzzing every endpoint (${mode})`, () => {
    let h: Harness
    let a: Account
    let target: FuzzTarget
    before(async () => {
      h = await startHarness(mode)
      a = await register(h.client)
      target = { token: a.token, noteId: (await addNote(h.client, a.token, { title: 'fuzz', content: 'target' }))._id }
    })
    after(async () => h.close())

    it(`answers ${RUNS[mode]} random and adversarial requests in the contract's shape, never 5xx`, async () => {
      const base = mode === 'http' ? `http://127.0.0.1:${(h.app.server.address() as { port: number }).port}` : ''
      const socket = mode === 'http' ? socketSender(base) : undefined
      const sender = socket ?? injectSender(h.app)
      try {
        const result = await fuzz(target, sender, RUNS[mode])
        assert.equal(result.report, undefined)
        assert.equal(result.cases, RUNS[mode])
        assert.equal(result.prototypePolluted, false, 'a prototype gained a property')
        // the generator reaches past validation: some requests succeed, some are refused
        assert.ok((result.statuses[200] ?? 0) > 0 && (result.statuses[400] ?? 0) > 0, JSON.stringify(result.statuses))
      } finally {
        socket?.close()
      }
    })

    if (mode === 'http') {
      it('answers bytes that are not HTTP with a 400 in the error shape', async () => {
        const port = (h.app.server.address() as { port: number }).port
        const garbage = [
          'GET /get-user HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n[]',
          'POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
          'POST /add-note HTTP/1.1\r\nHost x\r\n\r\n',
          '\u0000\u0001\u0002 / HTTP/1.1\r\n\r\n',
          'GET / HTTP/9.9\r\n\r\n',
        ]
        for (const raw of garbage) {
          const answer = await rawExchange(port, raw)
          const [head, body] = answer.split('\r\n\r\n')
          assert.match(head ?? '', /^HTTP\/1\.1 400 /, JSON.stringify(raw))
          assert.deepEqual(Object.keys(JSON.parse(body ?? '') as object), ['error', 'message'], JSON.stringify(raw))
        }
      })
    }

    it('still serves a health request and the account afterwards', async () => {
      const res = await h.client.request('GET', '/get-all-notes', { token: a.token })
      assert.equal(res.status, 200)
      const missing = await h.client.request('GET', '/no-such-path')
      assert.equal(missing.status, 404)
      assert.equal((missing.json as { error: boolean }).error, true)
    })
  })
}

/** Writes raw bytes on a new connection; resolves with everything the server sent back. */
function rawExchange(port: number, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(raw))
    let out = ''
    socket.setEncoding('latin1')
    socket.on('data', (d: string) => (out += d))
    socket.on('error', reject)
    socket.on('close', () => resolve(out))
    socket.setTimeout(5000, () => socket.destroy())
  })
}
