// The Store's session and account-change calls (store/sessions.ts, store/accounts.ts) on every driver: what each
// stores and answers, the one-transaction promises (an account with its first session; a
// password with the end of the other sessions), pruning, the "not before" time that never moves
// back, and the answers for accounts and sessions that do not exist.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { newId } from '../src/services/ids.js'
import { emptyInput } from '../src/note-shape.js'
import { PasswordReplacedError, type SessionRecord, type Store } from '../src/store/types.js'
import { makeUser } from './support/store-contract.js'
import { openTestStore, storeKinds } from './support/stores.js'
import { listedNotes } from './support/listed.js'

const at = (minutes: number) => new Date(Date.UTC(2026, 5, 1) + minutes * 60_000).toISOString()
const session = (userId: string, minutes: number, overrides: Partial<SessionRecord> = {}): SessionRecord => ({
  _id: newId(),
  userId,
  createdOn: at(minutes),
  lastUsedOn: at(minutes),
  client: 'client',
  ...overrides,
})
const KEEP_ALL = { createdBefore: at(-1_000_000), keepMost: 1000 }

for (const [kind, caches] of storeKinds().flatMap(
  (k) =>
    [
      [k, true],
      [k, false],
    ] as const,
)) {
  describe(`store sessions and account changes (${kind}, caches ${caches ? 'on' : 'off'})`, () => {
    let store: Store
    before(async () => {
      store = await openTestStore(kind, caches)
    })
    after(async () => store.close())

    it('creates an account with its first session in one transaction, or neither', async () => {
      const user = makeUser()
      const first = session(user._id, 0, { client: 'with \u0000 and \uffff' })
      assert.equal(await store.createUser(user, first), true)
      // The cache layer may add the versions it read (SessionOfAccount.checked); the rest is the record.
      const found = await store.findSession(first._id)
      assert.deepEqual([found?.session, found?.user], [first, user])
      const duplicate = makeUser({ emailKey: user.emailKey })
      const lost = session(duplicate._id, 0)
      assert.equal(await store.createUser(duplicate, lost), false)
      assert.equal(await store.findSession(lost._id), undefined)
      assert.equal(await store.findUserById(duplicate._id), undefined)
    })

    it('finds nothing for an unknown session, and refuses a session of an unknown account', async () => {
      assert.equal(await store.findSession(newId()), undefined)
      assert.equal(await store.findSession('not an id'), undefined)
      const orphan = session(newId(), 0)
      assert.equal(await store.createSession(orphan, KEEP_ALL), false)
      assert.equal(await store.findSession(orphan._id), undefined)
    })

    it("lists, touches only when stale, and deletes only the owner's sessions", async () => {
      const [user, other] = [makeUser(), makeUser()]
      await store.createUser(user)
      await store.createUser(other)
      const [s1, s2, s3] = [session(user._id, 1), session(user._id, 2), session(user._id, 3, { lastUsedOn: at(10) })]
      for (const s of [s1, s2, s3]) assert.equal(await store.createSession(s, KEEP_ALL), true)
      assert.deepEqual(await store.listSessions(user._id, at(0)), [s3, s2, s1])
      assert.deepEqual(await store.listSessions(user._id, at(2)), [s3, s2], 'only those created since')
      await store.touchSession(s1._id, at(20), at(0)) // last used at(1), not before at(0): left alone
      assert.equal((await store.findSession(s1._id))?.session.lastUsedOn, at(1))
      await store.touchSession(s1._id, at(20), at(5))
      assert.equal((await store.findSession(s1._id))?.session.lastUsedOn, at(20))
      assert.deepEqual(
        (await store.listSessions(user._id, at(0))).map((s) => s._id),
        [s1._id, s3._id, s2._id],
      )
      assert.equal(await store.deleteSession(other._id, s1._id), false, "another account's session")
      assert.equal(await store.deleteSession(user._id, s1._id), true)
      assert.equal(await store.deleteSession(user._id, s1._id), false)
      assert.equal(await store.findSession(s1._id), undefined)
    })

    it('prunes sessions past their lifetime and the least recently used past keepMost', async () => {
      const user = makeUser()
      await store.createUser(user)
      const expired = session(user._id, 0, { lastUsedOn: at(100) })
      const used = [
        session(user._id, 10, { lastUsedOn: at(50) }),
        session(user._id, 11, { lastUsedOn: at(20) }),
        session(user._id, 12, { lastUsedOn: at(30) }),
      ]
      for (const s of [expired, ...used]) await store.createSession(s, KEEP_ALL)
      const newest = session(user._id, 60)
      assert.equal(await store.createSession(newest, { createdBefore: at(5), keepMost: 3 }), true)
      // The expired one goes whatever its use; of the rest, the one used longest ago.
      assert.deepEqual(
        (await store.listSessions(user._id, at(-1))).map((s) => s._id),
        [newest._id, used[0]!._id, used[2]!._id],
      )
    })

    it('changes an account and ends its sessions in one call: all, all but one, or none', async () => {
      const user = makeUser()
      await store.createUser(user)
      const sessions = [session(user._id, 1), session(user._id, 2), session(user._id, 3)]
      for (const s of sessions) await store.createSession(s, KEEP_ALL)
      const renamed = await store.updateUser(user._id, { fullName: 'Renamed \u0000' })
      assert.deepEqual(renamed, { ...user, fullName: 'Renamed \u0000' })
      assert.equal((await store.listSessions(user._id, at(0))).length, 3, 'a rename ends nothing')

      const changed = await store.updateUser(
        user._id,
        { passwordHash: '$argon2id$new' },
        { notBefore: at(100), endSessions: true, keep: sessions[1]!._id },
      )
      assert.deepEqual(changed, {
        ...user,
        fullName: 'Renamed \u0000',
        passwordHash: '$argon2id$new',
        tokensNotBefore: at(100),
      })
      assert.deepEqual(
        (await store.listSessions(user._id, at(0))).map((s) => s._id),
        [sessions[1]!._id],
      )
      assert.deepEqual((await store.findSession(sessions[1]!._id))?.user, changed)

      // "not before" never moves back; endSessions false ends none.
      assert.equal(
        (await store.updateUser(user._id, {}, { notBefore: at(50), endSessions: false }))?.tokensNotBefore,
        at(100),
      )
      assert.equal((await store.listSessions(user._id, at(0))).length, 1)
      assert.equal(
        (await store.updateUser(user._id, {}, { notBefore: at(200), endSessions: true }))?.tokensNotBefore,
        at(200),
      )
      assert.deepEqual(await store.listSessions(user._id, at(0)), [])
      assert.equal((await store.findUserById(user._id))?.tokensNotBefore, at(200))
    })

    it('changes a password only over the hash it replaces, else changes and ends nothing', async () => {
      const user = makeUser()
      await store.createUser(user)
      const sessions = [session(user._id, 1), session(user._id, 2)]
      for (const s of sessions) await store.createSession(s, KEEP_ALL)
      const revocation = { notBefore: at(100), endSessions: true, keep: sessions[0]!._id }
      const stale = { passwordHash: '$argon2id$late', replacing: '$argon2id$replaced-meanwhile' }
      await assert.rejects(store.updateUser(user._id, stale, revocation), PasswordReplacedError)
      assert.deepEqual(await store.findUserById(user._id, true), user)
      assert.equal((await store.listSessions(user._id, at(0))).length, 2, 'nothing ends')

      const changed = await store.updateUser(
        user._id,
        { passwordHash: '$argon2id$first', replacing: user.passwordHash },
        revocation,
      )
      assert.equal(changed?.passwordHash, '$argon2id$first')
      assert.deepEqual(
        (await store.listSessions(user._id, at(0))).map((s) => s._id),
        [sessions[0]!._id],
      )
      const actor = { sessionId: sessions[0]!._id, issuedAt: at(200) }
      await assert.rejects(
        store.updateUser(
          user._id,
          { passwordHash: '$argon2id$second', replacing: user.passwordHash },
          revocation,
          actor,
        ),
        PasswordReplacedError,
      )
      assert.equal((await store.findUserById(user._id, true))?.passwordHash, '$argon2id$first')
      assert.equal(
        await store.updateUser(newId(), { passwordHash: 'x', replacing: 'y' }),
        undefined,
        'no account: undefined, as without a hash',
      )
    })

    it('changes nothing for an unknown account', async () => {
      const user = makeUser()
      await store.createUser(user)
      const mine = session(user._id, 1)
      await store.createSession(mine, KEEP_ALL)
      assert.equal(
        await store.updateUser(newId(), { fullName: 'x' }, { notBefore: at(1), endSessions: true }),
        undefined,
      )
      assert.equal(await store.deleteUser(newId()), false)
      assert.deepEqual((await store.findSession(mine._id))?.session, mine)
    })

    it('deletes an account with its notes and sessions, and nothing of another account', async () => {
      const [user, other] = [makeUser(), makeUser()]
      await store.createUser(user, session(user._id, 0))
      await store.createUser(other, session(other._id, 0))
      const note = { _id: newId(), ...emptyInput(), title: 't', content: 'c', createdOn: at(0), updatedOn: at(0) }
      await store.insertNote({ ...note, userId: user._id })
      const kept = { ...note, _id: newId(), userId: other._id }
      await store.insertNote(kept)
      assert.equal(await store.deleteUser(user._id), true)
      assert.equal(await store.findUserById(user._id), undefined)
      assert.deepEqual(await store.listSessions(user._id, at(-1)), [])
      assert.deepEqual(await listedNotes(store, user._id), [])
      assert.equal(await store.noteUsage(user._id), undefined)
      assert.equal(await store.deleteUser(user._id), false)
      assert.deepEqual(await listedNotes(store, other._id), [kept])
      assert.equal((await store.listSessions(other._id, at(-1))).length, 1)
      // A note or a session for the deleted account is refused, not stored.
      assert.equal(await store.insertNote({ ...note, _id: newId(), userId: user._id }), false)
      assert.equal(await store.createSession(session(user._id, 1), KEEP_ALL), false)
    })
  })
}
