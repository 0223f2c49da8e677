// A large import through the real CLI, with its memory bounded. `npm run test:system` imports
// 20 000 notes; IMPORT_TEST_NOTES=200000 runs the full-size import (docs/performance.md,
// "Import"):
//   IMPORT_TEST_NOTES=200000 node --import tsx --test test/system/transfer-large.test.ts
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { statSync } from 'node:fs'
import Database from 'better-sqlite3'
import { ObjectId } from 'bson'
import { runCli } from '../support/cli.js'
import { usersFile, writeManyNotes } from '../support/mongoexport.js'
import { TempDir } from '../support/transfer.js'

const NOTES = Number(process.env.IMPORT_TEST_NOTES ?? 20_000)
const USERS = Math.max(50, Math.round(NOTES / 1000))
const MEMORY_LIMIT = 300 * 1024 * 1024

let dir: TempDir
before(() => {
  dir = new TempDir()
})
after(() => dir.remove())

describe(`large import (${NOTES} notes, ${USERS} users)`, () => {
  it('finishes with memory under 300 MB and every note in place', async (t) => {
    const users = Array.from({ length: USERS }, (_, i) => {
      const _id = new ObjectId().toHexString()
      return {
        _id,
        fullName: `User ${i}`,
        email: `user${i}.${_id}@example.com`,
        password: `password ${i}`,
        createdOn: new Date(Date.UTC(2022, 0, 1 + i)),
      }
    })
    const usersPath = dir.file('users.json', usersFile(users, 'relaxed', 'lines'))
    const notesPath = dir.file('notes.json')
    await writeManyNotes(
      notesPath,
      users.map((u) => u._id),
      NOTES,
    )
    const dataDir = dir.file('data')

    const run = await runCli(['import', '--users', usersPath, '--notes', notesPath], { DATA_DIR: dataDir })
    assert.equal(run.code, 0, run.stderr)
    assert.match(
      run.stdout,
      new RegExp(`users: ${USERS} imported.*\\nnotes: ${NOTES} imported, 0 skipped \\(already present\\), 0 rejected`),
    )
    const seconds = Number(/import finished in ([\d.]+) s/.exec(run.stdout)?.[1])
    const notesPhase = /notes: 100% .*, ([\d.]+) s$/m.exec(run.stderr)
    t.diagnostic(
      `notes file ${(statSync(notesPath).size / 1e6).toFixed(1)} MB; import ${seconds} s in all, notes phase ${notesPhase?.[1]} s ` +
        `(${Math.round(NOTES / Number(notesPhase?.[1]))} notes/s); peak RSS ${(run.peakRss / 1024 / 1024).toFixed(0)} MB`,
    )
    if (run.peakRss > 0) assert.ok(run.peakRss < MEMORY_LIMIT, `peak RSS ${run.peakRss} bytes`)

    const db = new Database(`${dataDir}/notes.db`, { readonly: true })
    try {
      assert.equal(db.prepare('SELECT count(*) FROM notes').pluck().get(), NOTES)
      assert.equal(db.prepare('SELECT count(*) FROM users').pluck().get(), USERS)
    } finally {
      db.close()
    }
  })
})
