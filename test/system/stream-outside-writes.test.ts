// Changes made outside the service reach open live update streams on every instance within a second
// (docs/sync.md, "Live updates"): an operator's SQL through the triggers, and the operator's CLI
// (`users revoke-sessions`, `users delete`), none of which publishes on the change bus. Real
// server processes (two instances on PostgreSQL, one on SQLite, whose CLI is another process with no
// bus) with a heartbeat far beyond the test's waits: only the version watch can tell the streams.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import Database from 'better-sqlite3'
import { SQLITE_FILE } from '../../src/store/sqlite/index.js'
import { runCli } from '../support/cli.js'
import { type ChildServer, startChild } from '../support/child-server.js'
import { TEST_SECRET, uniqueEmail } from '../support/harness.js'
import { type TestDatabase, createTestDatabase, operatorPool } from '../support/services.js'
import { type SseStream, changeOf, openStream } from '../support/sse.js'
import { storeKinds } from '../support/stores.js'

const PASSWORD = 'correct horse battery staple'
/** Far below the heartbeat (STREAM_HEARTBEAT_MS below), far above the second promised: a busy machine is slow. */
const WAIT_MS = 10_000

const databases: TestDatabase[] = []
after(async () => Promise.all(databases.map((d) => d.drop())))

async function call(base: string, method: string, path: string, token?: string, body?: unknown) {
  const headers: Record<string, string> = {}
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (token) headers.authorization = `Bearer ${token}`
  const res = await fetch(base + path, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) })
  return { status: res.status, json: (await res.json().catch(() => ({}))) as Record<string, unknown> }
}

async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([
      promise,
      new Promise<never>(
        (_r, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${WAIT_MS} ms`)), WAIT_MS)),
      ),
    ])
  } finally {
    clearTimeout(timer)
  }
}

interface Watched {
  email: string
  noteId: string
  /** One per instance. */
  streams: SseStream[]
}

for (const kind of storeKinds()) {
  describe(`live update streams see changes made outside the service (${kind})`, { timeout: 180_000 }, () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'notes-outside-'))
    const env: Record<string, string> = {
      DATA_DIR: dataDir,
      ACCESS_TOKEN_SECRET: TEST_SECRET,
      STREAM_HEARTBEAT_MS: '600000',
    }
    let sql: (text: string, values: string[]) => Promise<void> = () => Promise.reject(new Error('no SQL connection'))
    let closeSql = async () => {}
    const servers: ChildServer[] = []
    const streams: SseStream[] = []
    before(async () => {
      if (kind === 'postgresql') {
        const db = await createTestDatabase()
        databases.push(db)
        env.DATABASE_URL = db.url
        const pool = operatorPool(db.url)
        sql = async (text, values) => {
          let n = 0
          await pool.query(
            text.replace(/\?/g, () => `$${++n}`),
            values,
          )
        }
        closeSql = () => pool.end()
      }
      for (let i = 0; i < (kind === 'postgresql' ? 2 : 1); i++) servers.push(await startChild({ dataDir, env }))
      if (kind === 'sqlite') {
        const db = new Database(join(dataDir, SQLITE_FILE))
        db.pragma('busy_timeout = 5000')
        sql = async (text, values) => void db.prepare(text).run(...values)
        closeSql = async () => void db.close()
      }
    })
    after(async () => {
      for (const stream of streams) stream.close()
      await closeSql()
      await Promise.all(servers.map((s) => s.stop()))
      rmSync(dataDir, { recursive: true, force: true })
    })

    /** A new account with a note, and a stream on every instance. */
    const watched = async (name: string): Promise<Watched> => {
      const email = uniqueEmail(name)
      const created = await call(servers[0]!.base, 'POST', '/create-account', undefined, {
        fullName: name,
        email,
        password: PASSWORD,
      })
      assert.equal(created.status, 200)
      const token = created.json.accessToken as string
      const added = await call(servers[0]!.base, 'POST', '/add-note', token, { title: 'by the API', content: 'c' })
      assert.equal(added.status, 200)
      const opened: SseStream[] = []
      for (const server of servers) {
        const stream = await openStream(server.base, { token })
        assert.equal(stream.status, 200)
        streams.push(stream)
        opened.push(stream)
      }
      return { email, noteId: (added.json.note as { _id: string })._id, streams: opened }
    }
    const run = async (...args: string[]) => {
      const done = await runCli(args, env)
      assert.equal(done.code, 0, done.stderr)
    }

    it("an operator's SQL through the triggers reaches every stream of the account", async () => {
      const { noteId, streams: opened } = await watched('sql')
      await sql('UPDATE notes SET title = ? WHERE id = ?', ['by SQL', noteId])
      for (const stream of opened) {
        const [event] = await within(stream.waitForEvents(1, WAIT_MS), 'the SQL change on a stream')
        assert.equal(changeOf(event!).note?.title, 'by SQL')
      }
    })

    it("the CLI's users revoke-sessions and users delete end every stream of the account", async () => {
      const revoked = await watched('revoked')
      await run('users', 'revoke-sessions', revoked.email)
      for (const stream of revoked.streams)
        assert.equal(await within(stream.ended, 'the stream of a revoked session ends'), 'end')
      const deleted = await watched('deleted')
      await run('users', 'delete', deleted.email, '--yes')
      for (const stream of deleted.streams)
        assert.equal(await within(stream.ended, 'the stream of a deleted account ends'), 'end')
    })
  })
}
