// Accounts with notes, a trash and a history, made through the HTTP API as people make them, and what a
// store answers about them: for the tests that move the trash and the history (export, import, backup).
import assert from 'node:assert/strict'
import type { Store } from '../../src/store/types.js'
import { type Account, type Client, addNote, register } from './harness.js'
import { listedNotes } from './listed.js'

export interface TrashHistoryData {
  accounts: Account[]
  /** Every note's id, live or trashed. */
  noteIds: string[]
}

/** Text PostgreSQL stores escaped (U+0000, U+FFFF) and text of several UTF-8 lengths, so the kept bytes are not the characters. */
const ODD = {
  title: 'odd \u0000 title',
  content: 'nul \u0000, noncharacter \uffff, é, 😀',
  tags: ['\u0000', '\uffff0', 'ü'],
}

/** Two accounts, each with live notes, a trash and a history: edited notes, deleted ones, edited then deleted. */
export async function makeTrashHistoryData(client: Client): Promise<TrashHistoryData> {
  const noteIds: string[] = []
  const send = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await client.request(method, path, { token, ...(body === undefined ? {} : { body }) })
    assert.equal(res.status, 200, `${method} ${path}: ${res.text}`)
  }
  const add = async (account: Account, body: Record<string, unknown>) => {
    const note = await addNote(client, account.token, body)
    noteIds.push(note._id)
    return note._id
  }
  const ada = await register(client, 'Ada')
  const bob = await register(client, 'Bob')

  const drafted = await add(ada, { title: 'draft', content: 'first', tags: ['a'] })
  await send('PUT', `/edit-note/${drafted}`, ada.token, { title: 'second draft' })
  await send('PUT', `/edit-note/${drafted}`, ada.token, { content: 'second', tags: ['a', 'b'] })
  const odd = await add(ada, ODD)
  await send('PUT', `/edit-note/${odd}`, ada.token, { content: `${ODD.content} edited \uffff\u0000` })
  await send('DELETE', `/delete-note/${odd}`, ada.token)
  const thrown = await add(ada, { title: 'thrown away', content: 'never edited' })
  await send('DELETE', `/delete-note/${thrown}`, ada.token)
  const pinned = await add(ada, { title: 'pinned', content: 'c' })
  await send('PUT', `/update-note-pinned/${pinned}`, ada.token, { isPinned: true })

  const bobs = await add(bob, { title: 'bob', content: 'c', tags: ['x'] })
  await send('PUT', `/edit-note/${bobs}`, bob.token, { title: 'bob edited' })
  await send('DELETE', `/delete-note/${bobs}`, bob.token)
  await add(bob, { title: 'bob keeps', content: ODD.content, tags: ODD.tags })
  return { accounts: [ada, bob], noteIds }
}

/** What the store answers each account: its listing, trash, usage and every note's history. */
export async function trashHistoryAnswers(store: Store, data: TrashHistoryData) {
  return Promise.all(
    data.accounts.map(async ({ userId }) => ({
      listing: await listedNotes(store, userId),
      trash: await store.listTrash(userId),
      usage: await store.noteUsage(userId),
      history: await Promise.all(data.noteIds.map((id) => store.noteHistory(userId, id))),
    })),
  )
}

/** Each kept row's bytes and each account's kept sum, as the database `sql` reads holds them. */
export async function trashHistoryBytes(sql: (text: string) => Promise<unknown[]>) {
  return {
    trash: await sql('SELECT id, bytes FROM trashed_notes ORDER BY id'),
    revisions: await sql('SELECT id, bytes FROM note_revisions ORDER BY id'),
    accounts: await sql('SELECT user_id, sum(kept) AS kept FROM account_usage GROUP BY user_id ORDER BY user_id'),
  }
}
