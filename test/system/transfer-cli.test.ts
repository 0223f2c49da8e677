// The import, export and backup commands as a user runs them: child processes of the real CLI.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import Database from 'better-sqlite3'
import { freePort, runCli, startCli } from '../support/cli.js'
import { notesFile, sampleData, usersFile } from '../support/mongoexport.js'
import { TempDir } from '../support/transfer.js'

let dir: TempDir
before(() => {
  dir = new TempDir()
})
after(() => dir.remove())

describe('notes-service import / export (CLI)', () => {
  it('imports with a larger thread pool, summarises, and exports back to standard output', async () => {
    const { users, notes } = sampleData()
    const env = { DATA_DIR: dir.file('cli-data') }
    const files = [
      '--users',
      dir.file('cli-u.json', usersFile(users, 'relaxed', 'lines')),
      '--notes',
      dir.file('cli-n.json', notesFile(notes, 'relaxed', 'array')),
    ]
    // More threads than libuv's default 4: the command runs itself again with UV_THREADPOOL_SIZE set.
    const run = await runCli(['import', ...files, '--threads', '6'], env)
    assert.equal(run.code, 0, run.stderr)
    assert.match(run.stderr, /hashing passwords on 6 threads/)
    assert.match(run.stderr, /^users: 100% 3 read, 3 imported, 0 skipped, 0 rejected/m)
    assert.match(
      run.stdout,
      /^import finished in [\d.]+ s \(7 records, \d+\/s\)\nusers: 3 imported, 0 skipped \(already present\), 0 rejected\nnotes: 4 imported, 0 skipped \(already present\), 0 rejected\n$/,
    )

    const twice = await runCli(['import', ...files], env)
    assert.equal(twice.code, 0)
    assert.match(twice.stdout, /users: 0 imported, 3 skipped .*\nnotes: 0 imported, 4 skipped/)

    const exported = await runCli(['export'], env)
    assert.equal(exported.code, 0, exported.stderr)
    const ids = exported.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { _id: { $oid: string } })._id.$oid)
    assert.deepEqual(ids, notes.map((n) => n._id).sort())
    assert.match(exported.stderr, /exported 0 user\(s\) and 4 note\(s\)/)
  })

  it('keeps every note over the quota and warns about the accounts left over it', async () => {
    const { users, notes } = sampleData()
    const env = { DATA_DIR: dir.file('cli-quota'), MAX_NOTES_PER_ACCOUNT: '2' }
    const run = await runCli(
      [
        'import',
        '--users',
        dir.file('q-u.json', usersFile(users, 'relaxed', 'lines')),
        '--notes',
        dir.file('q-n.json', notesFile(notes, 'relaxed', 'lines')),
      ],
      env,
    )
    assert.equal(run.code, 0, run.stderr)
    assert.match(run.stdout, /notes: 4 imported/)
    assert.match(
      run.stderr,
      /^warning: 1 account\(s\) keep more than MAX_NOTES_PER_ACCOUNT=2 notes or MAX_NOTE_MB_PER_ACCOUNT=200 MB \(the import is not held to the quota\)/m,
    )
    const quiet = await runCli(['import', '--notes', dir.file('q-n.json')], { DATA_DIR: dir.file('cli-quota') })
    assert.doesNotMatch(quiet.stderr, /warning/, 'under the default quota nobody is over')
  })

  it('exits 3 when records were rejected, 1 on --strict, 2 on a usage error', async () => {
    const env = { DATA_DIR: dir.file('cli-codes') }
    const bad = dir.file('cli-bad.json', '{"not":"a user"}\n')
    const rejected = await runCli(['import', '--users', bad], env)
    assert.equal(rejected.code, 3)
    assert.match(rejected.stderr, /cli-bad\.json:1: malformed user: _id is missing/)
    const strict = await runCli(['import', '--users', bad, '--strict'], env)
    assert.equal(strict.code, 1)
    assert.match(strict.stderr, /stopped \(--strict\) at .*cli-bad\.json:1/)
    const usage = await runCli(['import', '--bogus'], env)
    assert.equal(usage.code, 2)
    assert.match(usage.stderr, /usage:/)
  })
})

describe('notes-service backup (CLI) while a server writes', () => {
  it('copies a consistent database although notes are being added all along', async () => {
    const dataDir = dir.file('backup-data')
    const port = await freePort()
    const server = startCli(['serve'], {
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      ACCESS_TOKEN_SECRET: 'x'.repeat(40),
    })
    const base = `http://127.0.0.1:${port}`
    try {
      let token = ''
      for (let i = 0; !token; i++) {
        await sleep(200)
        const res = await fetch(`${base}/create-account`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ fullName: 'W', email: 'writer@example.com', password: 'pw' }),
        }).catch(() => undefined)
        if (res) token = ((await res.json()) as { accessToken: string }).accessToken
        assert.ok(i < 100, 'server did not start')
      }
      let acknowledged = 0
      let writing = true
      const writer = async () => {
        while (writing) {
          const res = await fetch(`${base}/add-note`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
            body: JSON.stringify({ title: `n${acknowledged}`, content: 'x'.repeat(2000) }),
          })
          assert.equal(res.status, 200)
          await res.arrayBuffer()
          acknowledged++
        }
      }
      const writers = [writer(), writer(), writer()]
      while (acknowledged < 150) await sleep(20)
      const before = acknowledged
      const backupFile = dir.file('copy.db')
      const run = await runCli(['backup', backupFile], { DATA_DIR: dataDir })
      const afterBackup = acknowledged
      writing = false
      await Promise.all(writers)

      assert.equal(run.code, 0, run.stderr)
      assert.ok(afterBackup > before, 'the server kept writing during the backup')
      const copy = new Database(backupFile, { readonly: true })
      try {
        assert.equal(copy.pragma('integrity_check', { simple: true }), 'ok')
        assert.deepEqual(copy.pragma('foreign_key_check'), [])
        const notes = copy.prepare('SELECT count(*) FROM notes').pluck().get() as number
        assert.ok(notes >= before && notes <= acknowledged, `${before} <= ${notes} <= ${acknowledged}`)
        assert.match(
          run.stdout,
          new RegExp(`backup written to .*copy\\.db: 1 user\\(s\\), ${notes} note\\(s\\), integrity ok`),
        )
      } finally {
        copy.close()
      }
      const again = await runCli(['backup', backupFile], { DATA_DIR: dataDir })
      assert.equal(again.code, 1)
      assert.match(again.stderr, /already exists/)
    } finally {
      server.kill('SIGTERM')
    }
  })
})
