// A person who deletes their account while their other devices are busy gets it deleted, and no request of that
// account answers a 5xx (docs/accounts.md, "Deleting an account under load"): DELETE /delete-account sent while 24
// clients of the same account add, edit (resizing and not), pin, trash and restore notes, rename the account, list,
// log in and send wrong passwords from a second session, over a real socket, on both stores. Every answer is 200,
// 401 or 404 (the wrong passwords' 400), the deletion answers 200, and nothing of the account is left.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { INVALID_CREDENTIALS } from '../src/services/accounts.js'
import {
  type Account,
  type Harness,
  type NoteBody,
  type Reply,
  addNote,
  register,
  startHarness,
} from './support/harness.js'
import { storeKinds } from './support/stores.js'

const ROUNDS = 8
const CLIENTS = 24
/** Answers the clients have had before the deletion is sent: it lands among writes under way. */
const ANSWERS_BEFORE = 60

type Answer = { what: string; reply: Reply }

for (const storeKind of storeKinds()) {
  describe(`delete-account while the account's other requests are under way (${storeKind}, over a socket)`, () => {
    let h: Harness
    before(async () => {
      h = await startHarness('http', { storeKind })
    })
    after(async () => h.close())

    /** The k-th request of a busy account: [what, method, path, body, token]. */
    function request(
      k: number,
      a: Account,
      other: string,
      notes: NoteBody[],
    ): [string, string, string, unknown, string] {
      const id = notes[k % notes.length]!._id
      const edit = (content: string): [string, string, string, unknown, string] => [
        'edit-note',
        'PUT',
        `/edit-note/${id}`,
        { content },
        a.token,
      ]
      // Edits most: each keeps a revision, whose foreign key waits for the account's row while its note is locked.
      const requests: [string, string, string, unknown, string][] = [
        ['add-note', 'POST', '/add-note', { title: `added ${k}`, content: `c${'x'.repeat(k % 40)}` }, a.token],
        edit(`edited ${k} ${'y'.repeat(k % 60)}`),
        ['edit-note', 'PUT', `/edit-note/${id}`, { title: `T${k % 10}` }, a.token],
        edit(`edited ${k}`),
        ['update-note-pinned', 'PUT', `/update-note-pinned/${id}`, { isPinned: k % 2 === 0 }, a.token],
        edit(`${'z'.repeat(k % 30)} edited ${k}`),
        ['delete-note', 'DELETE', `/delete-note/${id}`, undefined, a.token],
        edit(`edited again ${k}`),
        ['restore-note', 'PUT', `/restore-note/${id}`, undefined, a.token],
        edit(`once more ${k}`),
        ['edit-user', 'PUT', '/edit-user', { fullName: `Name ${k}` }, a.token],
        edit(`and ${k}`),
        ['get-all-notes', 'GET', '/get-all-notes', undefined, a.token],
        ['login', 'POST', '/login', { email: a.email, password: a.password }, ''],
        [
          'change-password',
          'PUT',
          '/change-password',
          { currentPassword: 'not the password', newPassword: `new password ${k}` },
          other,
        ],
      ]
      return requests[k % requests.length]!
    }

    const allowed = (a: Answer) =>
      [200, 401, 404].includes(a.reply.status) ||
      (a.what === 'change-password' &&
        a.reply.status === 400 &&
        (a.reply.json as { message?: string }).message === INVALID_CREDENTIALS) ||
      // A login that arrives after the deletion finds no account.
      (a.what === 'login' && a.reply.status === 400)

    it(`every answer is 200, 401 or 404, and the account is deleted (${ROUNDS} rounds)`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const a = await register(h.client)
        const login = await h.client.request('POST', '/login', { body: { email: a.email, password: a.password } })
        const other = (login.json as { accessToken: string }).accessToken
        const notes = await Promise.all(
          Array.from({ length: 12 }, (_, i) => addNote(h.client, a.token, { title: `n${i}`, content: `c${i}` })),
        )
        const answers: Answer[] = []
        let next = 0
        let deleted = false
        let enough: () => void = () => {}
        const started = new Promise<void>((resolve) => (enough = resolve))
        const client = async () => {
          while (!deleted) {
            const [what, method, path, body, token] = request(next++, a, other, notes)
            answers.push({ what, reply: await h.client.request(method, path, { body, ...(token ? { token } : {}) }) })
            if (answers.length >= ANSWERS_BEFORE) enough()
          }
        }
        const clients = Array.from({ length: CLIENTS }, client)
        await started
        const deletion = await h.client.request('DELETE', '/delete-account', {
          token: a.token,
          body: { password: a.password },
        })
        deleted = true
        await Promise.all(clients)

        const unexpected = answers.filter((x) => !allowed(x)).map((x) => `${x.what}: ${x.reply.status} ${x.reply.text}`)
        assert.deepEqual(unexpected, [], `round ${round}: answers other than 200, 401 or 404`)
        assert.equal(
          deletion.status,
          200,
          `round ${round}: DELETE /delete-account: ${deletion.status} ${deletion.text}`,
        )
        assert.equal(await h.store.findUserById(a.userId, true), undefined, `round ${round}: the account is gone`)
        assert.equal(await h.store.noteUsage(a.userId), undefined, `round ${round}: its notes are gone`)
        assert.deepEqual(await h.store.listTrash(a.userId), [], `round ${round}: its trash is gone`)
      }
    })
  })
}
