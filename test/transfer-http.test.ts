// After an import, the original service's users log in with their old plain-text passwords and
// see their notes under the old ids, over a real socket and through inject.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { openSqliteStore } from '../src/store/sqlite/index.js'
import { type Harness, MODES, startHarness } from './support/harness.js'
import { notesFile, sampleData, usersFile } from './support/mongoexport.js'
import { TempDir, runImport } from './support/transfer.js'

for (const mode of MODES) {
  describe(`imported accounts over HTTP (${mode})`, () => {
    const { users, notes } = sampleData()
    const ada = users[0]!
    let h: Harness
    let dir: TempDir
    before(async () => {
      dir = new TempDir()
      const store = openSqliteStore({ dataDir: ':memory:' })
      const { summary } = await runImport(store, {
        users: dir.file('users.json', usersFile(users, 'relaxed', 'lines')),
        notes: dir.file('notes.json', notesFile(notes, 'canonical', 'array')),
      })
      assert.equal(summary.notes.imported, notes.length)
      h = await startHarness(mode, { store })
    })
    after(async () => {
      await h.close()
      dir.remove()
    })

    it('logs in with the old plain-text password and sees the notes with their old ids', async () => {
      const login = await h.client.request('POST', '/login', {
        body: { email: ada.email.toLowerCase(), password: ada.password },
      })
      assert.equal(login.status, 200, login.text)
      const { accessToken, email } = login.json as { accessToken: string; email: string }
      assert.equal(email, ada.email)

      const me = await h.client.request('GET', '/get-user', { token: accessToken })
      assert.deepEqual(me.json, {
        user: { _id: ada._id, fullName: ada.fullName, email: ada.email, createdOn: ada.createdOn!.toISOString() },
        message: '',
      })

      const all = await h.client.request('GET', '/get-all-notes', { token: accessToken })
      assert.equal(all.status, 200)
      const listed = (all.json as { notes: { _id: string; title: string; isPinned: boolean }[] }).notes
      const expected = notes.filter((n) => n.userId === ada._id)
      // pinned first, then newest createdOn: the order the original data implies
      assert.deepEqual(
        listed.map((n) => n._id),
        [...expected]
          .sort(
            (a, b) =>
              Number(b.isPinned ?? false) - Number(a.isPinned ?? false) ||
              b.createdOn!.getTime() - a.createdOn!.getTime(),
          )
          .map((n) => n._id),
      )

      // An old bookmark to a note id still reaches the note.
      const old = expected[1]!
      const edited = await h.client.request('PUT', `/edit-note/${old._id}`, {
        token: accessToken,
        body: { title: 'edited after the move' },
      })
      assert.equal(edited.status, 200, edited.text)
      assert.equal((edited.json as { note: { _id: string; title: string } }).note._id, old._id)
    })

    it('refuses a wrong password for an imported account', async () => {
      const res = await h.client.request('POST', '/login', { body: { email: users[1]!.email, password: 'not it' } })
      assert.deepEqual(
        { status: res.status, body: res.json },
        { status: 400, body: { error: true, message: 'Invalid Credentials' } },
      )
      const ok = await h.client.request('POST', '/login', {
        body: { email: users[1]!.email, password: users[1]!.password },
      })
      assert.equal(ok.status, 200)
    })
  })
}
