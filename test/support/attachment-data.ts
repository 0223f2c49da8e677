// Accounts with attachments linked from live notes, the trash and kept revisions, made through the HTTP API as people
// make them, and what a service answers about them: for the tests that move attachments (export, import, backup,
// attachments migrate).
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import type { AttachmentAnswer, ListedAttachmentAnswer } from '../../src/attachment-shape.js'
import { uploaded } from './attachments.js'
import { type Account, type Client, type Harness, addNote, register } from './harness.js'
import { TINY_PNG } from './multipart.js'

export const sha256Of = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

export interface AttachmentData {
  accounts: Account[]
  /** Every file uploaded, with the bytes sent. */
  files: Array<AttachmentAnswer & { bytes: Buffer }>
}

/**
 * Two accounts: a picture and a file of several PostgreSQL chunks linked from a live note, the second also from a
 * kept revision of a note edited since; a file linked from a note in the trash; and one nothing links to.
 */
export async function makeAttachmentData(h: Harness): Promise<AttachmentData> {
  const send = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await h.client.request(method, path, { token, ...(body === undefined ? {} : { body }) })
    assert.equal(res.status, 200, `${method} ${path}: ${res.text}`)
  }
  const ada = await register(h.client, 'Ada')
  const bob = await register(h.client, 'Bob')
  const upload = async (account: Account, filename: string, bytes: Buffer) => ({
    ...(await uploaded(h, account.token, { filename, bytes })),
    bytes,
  })
  const picture = await upload(ada, 'dot.png', TINY_PNG)
  const large = await upload(ada, 'data.bin', randomBytes(2_500_000))
  const text = await upload(bob, 'notes ü.txt', Buffer.from('plain text, é'))
  const loose = await upload(bob, 'unlinked.txt', Buffer.from('nobody links here'))

  await addNote(h.client, ada.token, { title: 'pictures', content: `![dot](${picture.url}) [data](${large.url})` })
  const edited = await addNote(h.client, ada.token, { title: 'draft', content: `see ${large.url}` })
  await send('PUT', `/edit-note/${edited._id}`, ada.token, { content: 'no link any more' })
  const thrown = await addNote(h.client, bob.token, { title: `[t](${text.url})`, content: 'c' })
  await send('DELETE', `/delete-note/${thrown._id}`, bob.token)
  return { accounts: [ada, bob], files: [picture, large, text, loose] }
}

/** A token for the account on another service holding it (an import keeps its password's hash). */
export async function logIn(client: Client, account: Account): Promise<string> {
  const res = await client.request('POST', '/login', { body: { email: account.email, password: account.password } })
  assert.equal(res.status, 200, res.text)
  return (res.json as { accessToken: string }).accessToken
}

/** What the service answers each account: its attachments with their links and usage, and each file's SHA-256. */
export async function attachmentAnswers(client: Client, data: AttachmentData) {
  return Promise.all(
    data.accounts.map(async (account) => {
      const token = await logIn(client, account)
      const listed = await client.request('GET', '/get-attachments', { token })
      assert.equal(listed.status, 200, listed.text)
      const { attachments, usage } = listed.json as { attachments: ListedAttachmentAnswer[]; usage: unknown }
      const served = await Promise.all(
        attachments.map(async (file) => {
          const got = await client.request('GET', file.url, { token })
          assert.equal(got.status, 200, `${file.url}: ${got.text}`)
          return sha256Of(got.bytes)
        }),
      )
      return { attachments, usage, served }
    }),
  )
}
