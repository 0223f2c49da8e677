// Secrets stay secret: passwords are argon2id hashes at rest (read from the database
// file itself), no response, log line or token carries a password or a hash, and the generated
// token secret is a 0600 file in a 0700 directory.
import assert from 'node:assert/strict'
import { chmodSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import Database from 'better-sqlite3'
import { defaultConfig } from '../../src/config.js'
import { SECRET_FILE, resolveSecret } from '../../src/secret.js'
import { loggerOptions } from '../../src/server.js'
import { SQLITE_FILE, openSqliteStore } from '../../src/store/sqlite/index.js'
import { startChild } from '../support/child-server.js'
import { type Harness, type Reply, logLinesInto, startHarness, uniqueEmail } from '../support/harness.js'
import { SERVICE_LIMITS } from '../support/stores.js'
import { tempDir } from '../support/temp.js'

const PASSWORD = 'Tr0ub4dor&3-very-secret'

describe('secrets at rest, in answers, tokens and logs', () => {
  const tmp = tempDir('notes-secrets-')
  const logLines: string[] = []
  const replies: Reply[] = []
  let h: Harness
  let email: string
  let token: string
  let hash: string

  before(async () => {
    const stream = logLinesInto(logLines)
    h = await startHarness('http', {
      store: openSqliteStore({ dataDir: tmp.path, limits: SERVICE_LIMITS }),
      config: { passwordHashing: defaultConfig.passwordHashing },
      logger: { ...loggerOptions('trace'), stream },
    })
    email = uniqueEmail('secret')
    const send = async (method: string, path: string, opts: Parameters<Harness['client']['request']>[2] = {}) => {
      const res = await h.client.request(method, path, opts)
      replies.push(res)
      return res
    }
    const created = await send('POST', '/create-account', { body: { fullName: 'Sec Ret', email, password: PASSWORD } })
    token = (created.json as { accessToken: string }).accessToken
    await send('POST', '/create-account', { body: { fullName: 'Sec Ret', email, password: PASSWORD } }) // duplicate
    await send('POST', '/login', { body: { email, password: PASSWORD } })
    await send('POST', '/login', { body: { email, password: `${PASSWORD}x` } })
    await send('POST', '/login', { body: { email, password: PASSWORD.repeat(60) } }) // over the length limit
    await send('POST', '/login', {
      raw: `{"email":"${email}","password":"${PASSWORD}"`,
      headers: { 'content-type': 'application/json' },
    })
    await send('POST', '/login', {
      raw: `email=${email}&password=${PASSWORD}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    await send('GET', '/get-user', { token })
    await send('POST', '/add-note', { token, body: { title: 'n', content: 'c' } })
    await send('GET', '/get-all-notes', { token })
    await send('GET', `/search-notes?query=${encodeURIComponent(PASSWORD)}`, { token })
    // The account-management endpoints that take a password (docs/accounts.md).
    await send('PUT', '/change-password', { token, body: { currentPassword: `${PASSWORD}x`, newPassword: PASSWORD } })
    await send('PUT', '/change-password', { token, body: { currentPassword: PASSWORD, newPassword: PASSWORD } }) // refused: the same
    await send('PUT', '/change-password', {
      token,
      body: { currentPassword: PASSWORD, newPassword: `${PASSWORD} and more` },
    })
    await send('DELETE', '/delete-account', { token, body: { password: `${PASSWORD}x` } })
    await send('GET', '/get-sessions', { token })
    const db = new Database(join(tmp.path, SQLITE_FILE), { readonly: true })
    hash = (db.prepare('SELECT password_hash FROM users WHERE email = ?').pluck().get(email) as string) ?? ''
    db.close()
  })
  after(async () => {
    await h.close()
    tmp.remove()
  })

  it('stores the password as an argon2id hash (m = 19 MiB, t = 2, p = 1), and nowhere in plain text', () => {
    assert.match(hash, /^\$argon2id\$v=19\$m=19456,p=1,t=2\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/)
    for (const file of readdirSync(tmp.path)) {
      assert.ok(!readFileSync(join(tmp.path, file)).includes(PASSWORD), `${file} holds the password`)
    }
  })

  it('never answers with the password or the hash', () => {
    assert.ok(replies.length >= 10)
    const digest = hash.split('$').at(-1)!
    for (const res of replies) {
      const all = res.text + JSON.stringify(res.headers)
      assert.ok(!all.includes(PASSWORD), `a reply holds the password: ${all.slice(0, 200)}`)
      assert.ok(!all.includes(digest) && !all.includes('$argon2'), 'a reply holds the hash')
    }
  })

  it('puts only {user: {_id, fullName, email, createdOn}, sid, iat, exp} in the token', () => {
    const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>
    assert.deepEqual(Object.keys(payload).sort(), ['exp', 'iat', 'sid', 'user'])
    assert.deepEqual(Object.keys(payload.user as object).sort(), ['_id', 'createdOn', 'email', 'fullName'])
    assert.ok(!token.includes(PASSWORD))
  })

  it('logs every request at trace level without a password, a hash or a token', () => {
    assert.ok(logLines.length >= replies.length, `${logLines.length} log lines`)
    for (const line of logLines) {
      assert.ok(!line.includes(PASSWORD), `log line holds the password: ${line.slice(0, 300)}`)
      assert.ok(!line.includes('$argon2'), `log line holds a hash: ${line.slice(0, 300)}`)
      assert.ok(!line.includes(token.split('.')[2]!), `log line holds the token: ${line.slice(0, 300)}`)
    }
  })
})

describe('the generated token secret', () => {
  it('is written with mode 0600 in a 0700 directory, and a looser copy is repaired on start', () => {
    const tmp = tempDir('notes-secret-file-')
    try {
      const dir = join(tmp.path, 'data')
      const first = resolveSecret(undefined, dir)
      assert.equal(first.generated, true)
      assert.equal(statSync(first.file!).mode & 0o777, 0o600)
      assert.equal(statSync(dir).mode & 0o777, 0o700)
      chmodSync(first.file!, 0o644)
      const again = resolveSecret(undefined, dir)
      assert.equal(again.secret, first.secret)
      assert.equal(statSync(first.file!).mode & 0o777, 0o600)
    } finally {
      tmp.remove()
    }
  })

  it('is created 0600 by a real `notes-service serve` started without ACCESS_TOKEN_SECRET', async () => {
    const tmp = tempDir('notes-secret-child-')
    const server = await startChild({ dataDir: tmp.path, env: { ACCESS_TOKEN_SECRET: '' } })
    try {
      assert.equal(statSync(join(tmp.path, SECRET_FILE)).mode & 0o777, 0o600)
      assert.ok(
        !server.output().includes(readFileSync(join(tmp.path, SECRET_FILE), 'utf8').trim()),
        'the secret was printed',
      )
    } finally {
      await server.stop()
      tmp.remove()
    }
  })
})
