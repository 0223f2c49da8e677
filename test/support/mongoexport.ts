// Test fixtures shaped like what mongoexport (MongoDB Database Tools 100.x) writes for the
// original service's `users` and `notes` collections: Mongoose documents with `__v`, userId as a
// string, no updatedOn, tags and isPinned sometimes absent (documents older than those fields).
// Written by hand, field by field, rather than with EJSON.stringify, so they are exactly the text
// mongoexport gives and not what our own code would write.
import { createWriteStream } from 'node:fs'
import { once } from 'node:events'
import { ObjectId } from 'bson'

export type JsonMode = 'relaxed' | 'canonical'
/** lines: the default; array: --jsonArray; pretty-array: --jsonArray --pretty; pretty: --pretty. */
export type Layout = 'lines' | 'array' | 'pretty-array' | 'pretty'
export const LAYOUTS: readonly Layout[] = ['lines', 'array', 'pretty-array', 'pretty']
export const JSON_MODES: readonly JsonMode[] = ['relaxed', 'canonical']

export interface OriginalUser {
  _id: string
  fullName: string
  email: string
  password: string
  createdOn?: Date
}

export interface OriginalNote {
  _id: string
  title: string
  content: string
  tags?: string[]
  isPinned?: boolean
  userId: string
  createdOn?: Date
}

const oid = (hex: string) => `{"$oid":"${hex}"}`
const int32 = (n: number, mode: JsonMode) => (mode === 'canonical' ? `{"$numberInt":"${n}"}` : String(n))
/** Relaxed dates are ISO strings, with milliseconds only when there are some (as the Go tools write them). */
function date(d: Date, mode: JsonMode): string {
  if (mode === 'canonical') return `{"$date":{"$numberLong":"${d.getTime()}"}}`
  const iso = d.getUTCMilliseconds() === 0 ? d.toISOString().replace('.000Z', 'Z') : d.toISOString()
  return `{"$date":"${iso}"}`
}
const str = (s: string) => JSON.stringify(s)

export function userDocument(u: OriginalUser, mode: JsonMode): string {
  const fields = [
    `"_id":${oid(u._id)}`,
    `"fullName":${str(u.fullName)}`,
    `"email":${str(u.email)}`,
    `"password":${str(u.password)}`,
  ]
  if (u.createdOn) fields.push(`"createdOn":${date(u.createdOn, mode)}`)
  fields.push(`"__v":${int32(0, mode)}`)
  return `{${fields.join(',')}}`
}

export function noteDocument(n: OriginalNote, mode: JsonMode): string {
  const fields = [`"_id":${oid(n._id)}`, `"title":${str(n.title)}`, `"content":${str(n.content)}`]
  if (n.tags) fields.push(`"tags":[${n.tags.map(str).join(',')}]`)
  if (n.isPinned !== undefined) fields.push(`"isPinned":${n.isPinned}`)
  fields.push(`"userId":${str(n.userId)}`)
  if (n.createdOn) fields.push(`"createdOn":${date(n.createdOn, mode)}`)
  fields.push(`"__v":${int32(0, mode)}`)
  return `{${fields.join(',')}}`
}

/** Indents one document with tabs, as --pretty does. */
function pretty(doc: string): string {
  return JSON.stringify(JSON.parse(doc), null, '\t')
}

/** The whole file text for documents in a layout. */
export function layout(docs: string[], how: Layout): string {
  switch (how) {
    case 'lines':
      return docs.map((d) => `${d}\n`).join('')
    case 'array':
      return `[${docs.join(',')}]`
    case 'pretty-array':
      return `[\n${docs.map(pretty).join(',\n')}\n]\n`
    case 'pretty':
      return docs.map((d) => `${pretty(d)}\n`).join('')
  }
}

/** A small original database: three users, notes of every shape, one user without notes. */
export function sampleData(): { users: OriginalUser[]; notes: OriginalNote[] } {
  const [ada, bob, cy] = [new ObjectId().toHexString(), new ObjectId().toHexString(), new ObjectId().toHexString()]
  const users: OriginalUser[] = [
    {
      _id: ada,
      fullName: 'Ada Lovelace',
      email: `Ada.${ada}@Example.com`,
      password: 'analytical engine',
      createdOn: new Date('2023-03-04T05:06:07.089Z'),
    },
    {
      _id: bob,
      fullName: 'Bob',
      email: `bob.${bob}@example.com`,
      password: 'p@ss "quoted" ünï',
      createdOn: new Date('2023-05-06T07:08:09.000Z'),
    },
    // No createdOn: the import takes the ObjectId's creation time.
    { _id: cy, fullName: '', email: `cy.${cy}@example.com`, password: 'x' },
  ]
  const notes: OriginalNote[] = [
    {
      _id: new ObjectId().toHexString(),
      title: 'Groceries',
      content: 'milk, eggs',
      tags: ['home', 'food'],
      isPinned: true,
      userId: ada,
      createdOn: new Date('2024-01-02T03:04:05.678Z'),
    },
    {
      _id: new ObjectId().toHexString(),
      title: 'Old note',
      content: 'before tags existed',
      userId: ada,
      createdOn: new Date('2022-12-31T23:59:59.000Z'),
    },
    {
      _id: new ObjectId().toHexString(),
      title: 'Ünïcødé 🎉 "q"',
      content: 'line 1\nline 2\t{not: json}, [x]',
      tags: [],
      isPinned: false,
      userId: ada,
      createdOn: new Date('2024-02-03T00:00:00.001Z'),
    },
    {
      _id: new ObjectId().toHexString(),
      title: 'Bob',
      content: 'b',
      tags: ['x'],
      userId: bob,
      createdOn: new Date('2024-03-01T10:00:00.500Z'),
    },
  ]
  return { users, notes }
}

export function usersFile(users: OriginalUser[], mode: JsonMode, how: Layout): string {
  return layout(
    users.map((u) => userDocument(u, mode)),
    how,
  )
}

export function notesFile(notes: OriginalNote[], mode: JsonMode, how: Layout): string {
  return layout(
    notes.map((n) => noteDocument(n, mode)),
    how,
  )
}

/** Streams a large generated notes file (JSON lines, relaxed) without holding it in memory. */
export async function writeManyNotes(file: string, userIds: string[], count: number): Promise<void> {
  const out = createWriteStream(file)
  const start = Date.parse('2020-01-01T00:00:00.000Z')
  for (let i = 0; i < count; i++) {
    const note: OriginalNote = {
      _id: new ObjectId().toHexString(),
      title: `Note ${i}`,
      content: `Content of note ${i}: ${'lorem ipsum dolor sit amet '.repeat(6)}`,
      tags: i % 3 === 0 ? ['work', `t${i % 17}`] : [],
      isPinned: i % 10 === 0,
      userId: userIds[i % userIds.length]!,
      createdOn: new Date(start + i * 1000),
    }
    if (!out.write(`${noteDocument(note, 'relaxed')}\n`)) await once(out, 'drain')
  }
  out.end()
  await once(out, 'finish')
}
