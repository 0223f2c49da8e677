// The store contract: one suite that every driver must pass (SQLite now; PostgreSQL joins by
// calling storeContract with its own factory). It speaks only the Store interface.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { emptyInput } from '../../src/note-shape.js'
import { newId } from '../../src/services/ids.js'
import { SEARCH_CHUNK_CHARS } from '../../src/store/search-chunks.js'
import type { NoteRecord, Store, TextMatcher, TransferStore, UserRecord } from '../../src/store/types.js'
import { listedNotes, searchedNotes } from './listed.js'
import { erase, msAfter, noteOf, terms } from './note-writes.js'

export function makeUser(overrides: Partial<UserRecord> = {}): UserRecord {
  const id = newId()
  const email = `u-${id}@example.com`
  return {
    _id: id,
    fullName: 'U',
    email,
    emailKey: email.toLowerCase(),
    passwordHash: '$argon2id$fake',
    createdOn: new Date().toISOString(),
    ...overrides,
  }
}

let tick = Date.parse('2026-01-01T00:00:00.000Z')
/** A note with every field of the note's shape, its empty value unless given (keys in the shape's order). */
export function makeNote(userId: string, overrides: Partial<NoteRecord> = {}): NoteRecord {
  tick += 1000
  const at = new Date(tick).toISOString()
  return { _id: newId(), ...emptyInput(), title: 't', content: 'c', userId, createdOn: at, updatedOn: at, ...overrides }
}

/** A matcher answered in this process (the service's runs RE2 on its threads): the notes whose title or content passes `test`. */
const matching = (test: (text: string) => boolean): TextMatcher => ({
  matchPage: async (notes) => notes.flatMap((note, i) => (test(note.title) || test(note.content) ? [i] : [])),
  timeLeft: () => 60_000,
  outOfTime: () => assert.fail('out of time'),
})
const contains = (needle: string) => matching((text) => text.toLowerCase().includes(needle))

/** Runs the contract against a store made by `open`; `open` must give an empty store each call. */
export function storeContract(name: string, open: () => Promise<Store & TransferStore>): void {
  describe(`store contract: ${name}`, () => {
    let store: Store & TransferStore
    before(async () => {
      store = await open()
    })
    after(async () => store.close())

    it('creates users and finds them by id and by email key', async () => {
      const user = makeUser({ email: 'Mixed@Example.com', emailKey: `mixed-${newId()}@example.com` })
      assert.equal(await store.createUser(user), true)
      assert.deepEqual(await store.findUserById(user._id), user)
      assert.deepEqual(await store.findUserByEmailKey(user.emailKey), user)
      assert.equal(await store.findUserById(newId()), undefined)
      assert.equal(await store.findUserByEmailKey('nobody@example.com'), undefined)
    })

    it('refuses a second user with the same email key, even when they race', async () => {
      const key = `race-${newId()}@example.com`
      const results = await Promise.all(Array.from({ length: 8 }, () => store.createUser(makeUser({ emailKey: key }))))
      assert.equal(results.filter(Boolean).length, 1)
      assert.equal(await store.createUser(makeUser({ emailKey: key })), false)
    })

    it('inserts, finds, updates and deletes notes only for their owner', async () => {
      const owner = makeUser()
      const other = makeUser()
      await store.createUser(owner)
      await store.createUser(other)
      const note = makeNote(owner._id, { title: 'T', content: 'C', tags: ['a', 'b'] })
      await store.insertNote(note)
      assert.deepEqual(await store.findNote(owner._id, note._id), note)
      assert.equal(await store.findNote(other._id, note._id), undefined)

      assert.equal(await store.updateNote(other._id, note._id, { title: 'X' }, note.updatedOn, terms()), undefined)
      assert.equal(await store.deleteNote(other._id, note._id, erase()), undefined)
      assert.deepEqual(await store.findNote(owner._id, note._id), note)

      const later = new Date(Date.parse(note.updatedOn) + 5000).toISOString()
      const updated = noteOf(
        await store.updateNote(owner._id, note._id, { content: 'C2', isPinned: true }, later, terms()),
      )
      assert.deepEqual(updated, { ...note, content: 'C2', isPinned: true, updatedOn: later })
      // The same `now` again: each version is a millisecond past the one before (nextVersion).
      const tagsOnly = noteOf(await store.updateNote(owner._id, note._id, { tags: [] }, later, terms()))
      assert.deepEqual(tagsOnly?.tags, [])
      assert.equal(tagsOnly?.title, 'T')
      assert.equal(tagsOnly?.updatedOn, msAfter(later, 1))
      const unpinned = noteOf(await store.updateNote(owner._id, note._id, { isPinned: false }, later, terms()))
      assert.equal(unpinned?.isPinned, false)
      assert.equal(unpinned?.updatedOn, msAfter(later, 2))

      const deleted = noteOf(await store.deleteNote(owner._id, note._id, erase()))
      assert.deepEqual(deleted, { ...note, content: 'C2', tags: [], updatedOn: msAfter(later, 2) })
      assert.equal(await store.findNote(owner._id, note._id), undefined)
      assert.equal(await store.deleteNote(owner._id, note._id, erase()), undefined)
    })

    it('refuses a note whose account does not exist, storing nothing, and keeps the writes around it', async () => {
      const owner = makeUser()
      await store.createUser(owner)
      const gone = makeNote(newId())
      // Side by side, so the SQLite store commits all three in one group: only the orphan fails.
      const [before, orphan, after] = await Promise.all([
        store.insertNote(makeNote(owner._id, { title: 'before' })),
        store.insertNote(gone),
        store.insertNote(makeNote(owner._id, { title: 'after' })),
      ])
      assert.deepEqual([before, orphan, after], [true, false, true])
      assert.equal(await store.findNote(gone.userId, gone._id), undefined)
      assert.deepEqual((await listedNotes(store, owner._id)).map((n) => n.title).sort(), ['after', 'before'])
    })

    it('keeps text exactly: unicode, quotes, NUL-free control characters, long content', async () => {
      const owner = makeUser()
      await store.createUser(owner)
      const note = makeNote(owner._id, {
        title: `Ünïcødé 🎉 "q" 'q' \\ %_`,
        content: 'x'.repeat(100_000) + '\n\t\u0001',
        tags: ['🏷️', ''],
      })
      await store.insertNote(note)
      assert.deepEqual(await store.findNote(owner._id, note._id), note)
    })

    it('keeps NUL and U+FFFF, which JSON allows, in every text field', async () => {
      const odd = 'a\u0000b\uffff0c\uffff\uffff\u0000'
      const owner = makeUser({ fullName: odd, email: `${odd}@x`, emailKey: `${odd}-${newId()}@x` })
      assert.equal(await store.createUser(owner), true)
      assert.deepEqual(await store.findUserByEmailKey(owner.emailKey), owner)
      assert.equal(await store.findUserByEmailKey(owner.emailKey.replace('\u0000', '')), undefined)
      const note = makeNote(owner._id, { title: odd, content: `\u0000${odd}`, tags: [odd, '\u0000'] })
      await store.insertNote(note)
      assert.deepEqual(await store.findNote(owner._id, note._id), note)
      const edited = noteOf(
        await store.updateNote(owner._id, note._id, { title: '\uffff', tags: ['\uffff0'] }, note.updatedOn, terms()),
      )
      assert.deepEqual(edited, { ...note, title: '\uffff', tags: ['\uffff0'], updatedOn: msAfter(note.updatedOn, 1) })
      const found = await searchedNotes(
        store,
        owner._id,
        matching((t) => t.includes('\u0000b\uffff0')),
      )
      assert.deepEqual(
        found.map((n) => n._id),
        [note._id],
      )
    })

    it('lists pinned first, then newest createdOn, ties by _id descending', async () => {
      const owner = makeUser()
      await store.createUser(owner)
      const sameTime = new Date(tick + 500_000).toISOString()
      const n1 = makeNote(owner._id, { title: 'old' })
      const n2 = makeNote(owner._id, { title: 'pinned old', isPinned: true })
      const n3 = makeNote(owner._id, { title: 'new' })
      const n4 = makeNote(owner._id, { title: 'pinned new', isPinned: true })
      const tieA = makeNote(owner._id, { _id: 'aaaaaaaaaaaaaaaaaaaaaaa1', createdOn: sameTime, title: 'tie a' })
      const tieB = makeNote(owner._id, { _id: 'aaaaaaaaaaaaaaaaaaaaaaa2', createdOn: sameTime, title: 'tie b' })
      for (const n of [tieA, n3, n1, n4, tieB, n2]) await store.insertNote(n)
      const titles = (await listedNotes(store, owner._id)).map((n) => n.title)
      assert.deepEqual(titles, ['pinned new', 'pinned old', 'tie b', 'tie a', 'new', 'old'])
      assert.deepEqual(await listedNotes(store, makeUser()._id), [])
    })

    it('lists and searches as JSON text: the records, encoded as JSON.stringify does, in list order', async () => {
      const owner = makeUser()
      await store.createUser(owner)
      const odd = [
        `Ünïcødé 🎉 "q" \\ \u0001\b\f\n\r\t\u001f\u007f\u2028`,
        'a\u0000b\uffff',
        '\uffff0 \uffff\uffff \uffff\u0000 \u0000\uffff0',
        '</script>',
        '',
      ]
      const notes = odd.map((text, i) =>
        makeNote(owner._id, {
          title: `t${i} ${text}`,
          content: `c ${text}`,
          tags: [text, 'x'],
          isPinned: i === 3,
          createdOn: new Date(tick + 900_000 + i).toISOString(),
        }),
      )
      for (const n of notes) await store.insertNote(n)
      const expected = [notes[3], notes[4], notes[2], notes[1], notes[0]] as NoteRecord[]
      assert.equal((await store.listNotesJson(owner._id)).toString(), JSON.stringify(expected))
      assert.equal(await store.searchNotesJson(owner._id, contains('c ')), JSON.stringify(expected))
      assert.equal(await store.searchNotesJson(owner._id, contains('script')), JSON.stringify([notes[3]]))
      // With a plan, which a driver answers from its index.
      const quoted = matching((text) => text.includes('"q"'))
      assert.equal(
        await store.searchNotesJson(owner._id, { ...quoted, plan: { literal: '"q"' } }),
        JSON.stringify([notes[0]]),
      )
      assert.equal(
        await store.searchNotesJson(owner._id, {
          ...contains('script'),
          plan: { or: [{ literal: '"q"' }, { literal: 'ipt' }] },
        }),
        JSON.stringify([notes[3]]),
      )
      assert.equal(
        await store.searchNotesJson(owner._id, { ...contains('script'), plan: { literal: 'script' } }),
        JSON.stringify([notes[3]]),
      )
      const either = { or: [{ literal: '</s' }, { literal: 'zzz' }] }
      assert.equal(
        await store.searchNotesJson(owner._id, { ...contains('script'), plan: { and: [{ literal: 'ipt>' }, either] } }),
        JSON.stringify([notes[3]]),
      )
      assert.equal(await store.searchNotesJson(owner._id, contains('nothing at all')), '[]')
      assert.equal((await store.listNotesJson(makeUser()._id)).toString(), '[]')
    })

    it('lists an account without notes, and an unknown id, as [], and the same notes again when nothing changed', async () => {
      const owner = makeUser()
      const empty = makeUser()
      await store.createUser(owner)
      await store.createUser(empty)
      for (let i = 0; i < 3; i++) await store.insertNote(makeNote(owner._id, { title: `of account ${i}` }))
      const listed = (await store.listNotesJson(owner._id)).toString()
      assert.equal((JSON.parse(listed) as unknown[]).length, 3)
      assert.equal((await store.listNotesJson(empty._id)).toString(), '[]')
      assert.equal((await store.listNotesJson(makeUser()._id)).toString(), '[]')
      // Twice, as a cache would answer the second time.
      assert.equal((await store.listNotesJson(owner._id)).toString(), listed)
      assert.equal((await store.listNotesJson(empty._id)).toString(), '[]')
    })

    it('searches title or content of the owner only, in list order', async () => {
      const owner = makeUser()
      const other = makeUser()
      await store.createUser(owner)
      await store.createUser(other)
      await store.insertNote(makeNote(owner._id, { title: 'Budget', content: 'x' }))
      await store.insertNote(makeNote(owner._id, { title: 'y', content: 'the budget', isPinned: true }))
      await store.insertNote(makeNote(owner._id, { title: 'z', content: 'z' }))
      await store.insertNote(makeNote(other._id, { title: 'budget of other', content: 'budget' }))
      const found = await searchedNotes(store, owner._id, contains('budget'))
      assert.deepEqual(
        found.map((n) => n.title),
        ['y', 'Budget'],
      )
      assert.deepEqual(await searchedNotes(store, owner._id, contains('nothing')), [])
    })

    it('searches more notes than a chunk holds, complete and in list order, with or without a plan', async () => {
      const owner = makeUser()
      await store.createUser(owner)
      const at = (i: number) => new Date(tick + 2_000_000 + i * 1000).toISOString()
      const notes = Array.from({ length: 4003 }, (_, i) =>
        makeNote(owner._id, {
          title: `n${i}`,
          content: i % 3 === 0 ? 'third' : 'other',
          isPinned: i % 50 === 0,
          createdOn: at(i),
        }),
      )
      await store.importNotes(notes)
      const listed = (await listedNotes(store, owner._id)).map((n) => n._id)
      const thirds = new Set(notes.filter((n) => n.content === 'third').map((n) => n._id))
      const expected = listed.filter((id) => thirds.has(id))
      for (const plan of [undefined, { literal: 'third' }]) {
        const found = await searchedNotes(store, owner._id, { ...contains('third'), ...(plan ? { plan } : {}) })
        assert.deepEqual(
          found.map((n) => n._id),
          expected,
        )
      }
    })

    it('searches notes as large as the limits allow in chunks bounded in characters, complete and in list order', async () => {
      const owner = makeUser()
      await store.createUser(owner)
      const count = Math.ceil((3 * SEARCH_CHUNK_CHARS) / 100_000)
      const notes = Array.from({ length: count }, (_, i) =>
        makeNote(owner._id, { title: `${i % 10}`.repeat(1000), content: `big ${i} `.padEnd(100_000, 'x') }),
      )
      for (const n of notes) await store.insertNote(n)
      const pages: number[][] = []
      const found = await searchedNotes(store, owner._id, {
        matchPage: async (page) => {
          pages.push(page.map((n) => n.title.length + n.content.length))
          return page.flatMap((n, i) => (n.content.startsWith('big ') ? [i] : []))
        },
        timeLeft: () => 60_000,
        outOfTime: () => assert.fail('out of time'),
      })
      assert.deepEqual(
        found.map((n) => n._id),
        notes.map((n) => n._id).reverse(),
      )
      assert.ok(pages.length > 2, `${pages.length} chunk(s)`)
      // The first chunk is read before the notes' sizes are known; the next ones are sized by it.
      for (const page of pages.slice(1))
        assert.ok(page.reduce((a, b) => a + b, 0) <= 1.2 * SEARCH_CHUNK_CHARS, JSON.stringify(page))
    })

    it('imports users with their own ids, hashes and dates, idempotently, refusing duplicate email keys', async () => {
      const a = makeUser({ createdOn: '2020-02-03T04:05:06.789Z', passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$kept' })
      const b = makeUser()
      const sameKeyAsA = makeUser({ email: a.email.toUpperCase(), emailKey: a.emailKey })
      const sameIdAsB = makeUser({ _id: b._id })
      assert.deepEqual(await store.importUsers([a, b, sameKeyAsA, sameIdAsB]), [
        'inserted',
        'inserted',
        'duplicate-email',
        'exists',
      ])
      assert.deepEqual(await store.findUserById(a._id), a)
      assert.deepEqual(await store.findUserById(b._id), b)
      assert.equal(await store.findUserById(sameKeyAsA._id), undefined)
      assert.deepEqual(await store.importUsers([a, b]), ['exists', 'exists'])
      assert.deepEqual(await store.importUsers([]), [])
      const registered = makeUser()
      assert.equal(await store.createUser(registered), true)
      assert.deepEqual(await store.importUsers([makeUser({ emailKey: registered.emailKey })]), ['duplicate-email'])
    })

    it('imports notes with their own ids and dates, idempotently, refusing notes without a user, naming what differs under a taken _id', async () => {
      const owner = makeUser()
      await store.importUsers([owner])
      const note = makeNote(owner._id, {
        tags: ['x', 'y'],
        isPinned: true,
        createdOn: '2019-01-01T00:00:00.000Z',
        updatedOn: '2021-01-01T00:00:00.000Z',
      })
      const orphan = makeNote(newId())
      const sameId = makeNote(owner._id, { _id: note._id, title: 'other', tags: ['x'] })
      assert.deepEqual(await store.importNotes([note, orphan, sameId, { ...note }]), [
        'inserted',
        'missing-user',
        { differs: ['title', 'tags', 'isPinned', 'createdOn', 'updatedOn'] },
        'exists',
      ])
      assert.deepEqual(await store.findNote(owner._id, note._id), note)
      assert.deepEqual(await store.importNotes([note]), ['exists'])
      assert.deepEqual(await store.importNotes([{ ...note, userId: newId() }]), [{ differs: ['userId'] }])
      assert.deepEqual(await listedNotes(store, owner._id), [note])
      assert.deepEqual(await store.importNotes([]), [])
    })

    it("pages through all users and notes in _id order, and through one user's notes", async () => {
      const owner = makeUser()
      const other = makeUser()
      await store.importUsers([owner, other])
      const mine = Array.from({ length: 7 }, () => makeNote(owner._id))
      await store.importNotes([...mine, makeNote(other._id), makeNote(other._id)])

      const pageAll = async <T extends { _id: string }>(
        page: (after: string | undefined) => Promise<T[]>,
      ): Promise<T[]> => {
        const all: T[] = []
        for (let batch = await page(undefined); batch.length; batch = await page(batch[batch.length - 1]?._id)) {
          assert.ok(batch.length <= 3)
          all.push(...batch)
        }
        return all
      }
      const users = await pageAll((after) => store.usersAfter(after, 3))
      const ids = users.map((u) => u._id)
      assert.deepEqual(ids, [...new Set(ids)].sort())
      assert.deepEqual(
        users.find((u) => u._id === owner._id),
        owner,
      )

      const notes = await pageAll((after) => store.notesAfter(after, 3))
      const noteIds = notes.map((n) => n._id)
      assert.deepEqual(noteIds, [...new Set(noteIds)].sort())
      for (const n of mine)
        assert.deepEqual(
          notes.find((x) => x._id === n._id),
          n,
        )

      const ownerNotes = await pageAll((after) => store.notesAfter(after, 3, owner._id))
      assert.deepEqual(
        ownerNotes,
        [...mine].sort((x, y) => (x._id < y._id ? -1 : 1)),
      )
      assert.deepEqual(await store.notesAfter(undefined, 3, newId()), [])
    })

    it('answers ping', async () => {
      await store.ping()
    })
  })
}
