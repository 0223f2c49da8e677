// The CLI as a user runs it: one clear line for bad configuration, and a graceful stop on
// SIGTERM that finishes the request in flight.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { connect } from 'node:net'
import { after, describe, it } from 'node:test'
import { migrations } from '../../src/store/sqlite/migrations.js'
import { finished, listening } from '../support/child.js'
import { freePort, runCli, startCli } from '../support/cli.js'
import { tempDir } from '../support/temp.js'

describe('notes-service CLI', () => {
  const dir = tempDir()
  after(() => dir.remove())

  for (const [env, variable] of [
    [{ PORT: 'eighty' }, 'PORT'],
    [{ ACCESS_TOKEN_SECRET: 'too-short' }, 'ACCESS_TOKEN_SECRET'],
    [{ LOG_LEVEL: 'chatty' }, 'LOG_LEVEL'],
  ] as const) {
    it(`refuses to start with a bad ${variable}, in one line naming it`, async () => {
      const { code, stderr } = await runCli(['serve'], { ...env, DATA_DIR: dir.path })
      assert.equal(code, 1)
      const lines = stderr.trim().split('\n')
      assert.equal(lines.length, 1, stderr)
      assert.match(lines[0]!, new RegExp(`^notes-service: invalid configuration: ${variable}: `))
    })
  }

  it('rejects an unknown command with usage', async () => {
    const { code, stderr } = await runCli(['frobnicate'], {})
    assert.equal(code, 2)
    assert.match(stderr, /unknown command "frobnicate"/)
  })

  it('migrate applies the migrations once', async () => {
    const data = tempDir()
    try {
      const first = await runCli(['migrate'], { DATA_DIR: data.path })
      assert.equal(first.code, 0, first.stderr)
      assert.match(first.stdout, new RegExp(`applied ${migrations.length} migration`))
      const again = await runCli(['migrate'], { DATA_DIR: data.path })
      assert.match(again.stdout, /applied 0 migration/)
    } finally {
      data.remove()
    }
  })

  it('stops gracefully on SIGTERM: the request in flight is answered, then it exits 0', async () => {
    const port = await freePort()
    const child = startCli(['serve'], { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dir.path, LOG_LEVEL: 'info' })
    const exit = finished(child)
    await listening(child)

    // Send the headers and half a body, stop the server, then send the rest.
    const socket = connect(port, '127.0.0.1')
    await once(socket, 'connect')
    const body = JSON.stringify({ email: 'nobody@example.com', password: 'x' })
    socket.write(
      `POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    )
    socket.write(body.slice(0, 10))
    let response = ''
    socket.on('data', (d: Buffer) => (response += d.toString()))
    await new Promise((r) => setTimeout(r, 200))
    child.kill('SIGTERM')
    await new Promise((r) => setTimeout(r, 200))
    socket.write(body.slice(10))
    await once(socket, 'end')
    assert.match(response, /^HTTP\/1\.1 400/)
    assert.match(response, /Invalid Credentials/)

    const { code, stdout, stderr } = await exit
    assert.equal(code, 0, stdout + stderr)
    assert.match(stdout, /closing gracefully/)
    // after the stop nobody is listening
    const refused = connect(port, '127.0.0.1')
    const [err] = (await once(refused, 'error')) as [NodeJS.ErrnoException]
    assert.equal(err.code, 'ECONNREFUSED')
  })
})
