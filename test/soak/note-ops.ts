// The note traffic of a device, each request checked against the account's model as it is answered: a device's own
// notes change only through it, so every answer about them is known in advance, but for the races it provokes.
import type { Device } from './device.js'
import {
  type NoteFields,
  type NoteJson,
  type OwnNote,
  type Where,
  fieldsOf,
  sameFields,
  sameNote,
  show,
} from './model.js'

type IfMatch = 'none' | 'current' | 'stale'

/** An answer the model rules out: a lost or invented write, unless the account is being deleted meanwhile. */
function unexpected(d: Device, what: string): void {
  if (d.account.deletion !== 'none') return
  d.ctx.recorder.violate('every acknowledged write is stored', `${d.account.label}: ${what}`)
}

const uncertain = (a: { status: number; noAnswer?: string }) => a.status === 0 && a.noAnswer !== 'refused'

function ifMatchOf(d: Device, note: OwnNote, allowed: IfMatch[]): IfMatch {
  const modes = allowed.filter((m) => m !== 'stale' || note.known?.previousVersion !== undefined)
  return d.random.pick(modes)
}

function newFields(d: Device, token: string, isPinned: boolean): NoteFields {
  d.serial++
  return {
    title: `note ${token} ${d.random.word(4)}`,
    content: `c${d.serial} ${d.random.word(1 + d.random.below(60))}`,
    tags: d.random.chance(0.5) ? [d.random.word(3)] : [],
    isPinned,
  }
}

export async function addNote(d: Device): Promise<void> {
  const token = `${d.prefix}${d.notesMade++}z`
  const fields = newFields(d, token, false)
  const a = await d.request('POST', '/add-note', {
    body: { title: fields.title, content: fields.content, tags: fields.tags },
  })
  if (a.status === 200) {
    const note = a.json.note as NoteJson
    if (!sameFields(note, fields)) unexpected(d, `add-note answered ${show(note)} for ${show(fields)}`)
    d.account.notes.set(note._id, { id: note._id, token, known: { where: 'live', note } })
  } else if (uncertain(a)) {
    d.account.uncertainAdds.set(token, fields)
  }
}

/** A write to one of the device's own notes; `after` is where it leaves the note, `fields` what it holds then. */
async function ownWrite(
  d: Device,
  note: OwnNote,
  method: string,
  path: string,
  mode: IfMatch,
  after: Where,
  fields: NoteFields,
  body?: unknown,
): Promise<void> {
  const known = note.known!
  const version = mode === 'current' ? known.note.updatedOn : known.previousVersion
  const a = await d.request(method, path, {
    ...(body !== undefined && { body }),
    ...(mode !== 'none' && { headers: { 'if-match': `"${version}"` } }),
  })
  const what = `${method} ${note.id} (If-Match ${mode})`
  if (a.status === 200) {
    const answered = a.json.note as NoteJson
    if (mode === 'stale') unexpected(d, `${what} was applied with a stale version`)
    if (!sameFields(answered, fields)) unexpected(d, `${what} answered ${show(answered)}, expected ${show(fields)}`)
    note.known =
      after === 'trash'
        ? { where: 'trash', note: answered }
        : { where: 'live', note: answered, previousVersion: known.note.updatedOn }
  } else if (a.status === 412) {
    if (mode !== 'stale') unexpected(d, `${what} answered 412: the note changed though only this device writes it`)
    else if (!sameNote(a.json.note as NoteJson, known.note))
      unexpected(
        d,
        `${what}: the 412's note ${show(a.json.note as NoteJson)} is not the acknowledged ${show(known.note)}`,
      )
  } else if (a.status === 404) {
    unexpected(d, `${what} answered 404 for a note acknowledged ${known.where}`)
  } else if (uncertain(a)) {
    note.known = undefined
    note.possible = [
      { where: known.where, fields: fieldsOf(known.note) },
      { where: after, fields },
    ]
  }
}

export async function editNote(d: Device, note: OwnNote): Promise<void> {
  const fields = newFields(d, note.token, note.known!.note.isPinned)
  const mode = ifMatchOf(d, note, ['none', 'current', 'stale'])
  await ownWrite(d, note, 'PUT', `/edit-note/${note.id}`, mode, 'live', fields, {
    title: fields.title,
    content: fields.content,
    tags: fields.tags,
  })
}

export async function pinNote(d: Device, note: OwnNote): Promise<void> {
  const fields = { ...fieldsOf(note.known!.note), isPinned: !note.known!.note.isPinned }
  await ownWrite(
    d,
    note,
    'PUT',
    `/update-note-pinned/${note.id}`,
    ifMatchOf(d, note, ['none', 'current', 'stale']),
    'live',
    fields,
    { isPinned: fields.isPinned },
  )
}

export async function deleteNote(d: Device, note: OwnNote): Promise<void> {
  await ownWrite(
    d,
    note,
    'DELETE',
    `/delete-note/${note.id}`,
    ifMatchOf(d, note, ['none', 'current']),
    'trash',
    fieldsOf(note.known!.note),
  )
}

export async function restoreNote(d: Device, note: OwnNote): Promise<void> {
  const known = note.known!
  const a = await d.request('PUT', `/restore-note/${note.id}`)
  if (a.status === 200) {
    const answered = a.json.note as NoteJson
    if (!sameFields(answered, known.note))
      unexpected(d, `restore-note answered ${show(answered)}, trashed ${show(known.note)}`)
    note.known = { where: 'live', note: answered, previousVersion: known.note.updatedOn }
  } else if (a.status === 404) {
    unexpected(d, `restore-note answered 404 for a note acknowledged in the trash`)
  } else if (uncertain(a)) {
    note.known = undefined
    note.possible = [
      { where: 'trash', fields: fieldsOf(known.note) },
      { where: 'live', fields: fieldsOf(known.note) },
    ]
  }
}

export async function restoreRevision(d: Device, note: OwnNote): Promise<void> {
  const history = await d.request('GET', `/get-note-history/${note.id}`)
  if (history.status === 404)
    unexpected(d, `get-note-history answered 404 for a note acknowledged ${note.known?.where}`)
  if (history.status !== 200 || note.known?.where !== 'live') return
  const revisions = history.json.revisions as Array<NoteFields & { _id: string }>
  if (revisions.length === 0) return
  const revision = d.random.pick(revisions)
  const fields = {
    title: revision.title,
    content: revision.content,
    tags: revision.tags,
    isPinned: note.known.note.isPinned,
  }
  await ownWrite(
    d,
    note,
    'PUT',
    `/restore-revision/${note.id}/${revision._id}`,
    ifMatchOf(d, note, ['none', 'current', 'stale']),
    'live',
    fields,
  )
}

export async function searchNote(d: Device, note: OwnNote): Promise<void> {
  const a = await d.request('GET', `/search-notes?query=${note.token}`)
  if (a.status !== 200 || !note.known) return
  const found = a.json.notes as NoteJson[]
  const expected = note.known.where === 'live' ? [note.known.note] : []
  if (found.length !== expected.length || !found.every((n, i) => sameNote(n, expected[i]!))) {
    unexpected(
      d,
      `search for ${note.token} found ${found.map(show).join(', ') || 'nothing'}, acknowledged ${note.known.where} ${show(note.known.note)}`,
    )
  }
}

/** The listing holds each of the device's acknowledged notes as acknowledged, and none of its trashed ones. */
export async function listNotes(d: Device): Promise<void> {
  const a = await d.request('GET', '/get-all-notes')
  if (a.status !== 200) return
  const listed = new Map((a.json.notes as NoteJson[]).map((n) => [n._id, n]))
  for (const where of ['live', 'trash'] as const) {
    for (const note of d.account.notesOf(d.prefix, where)) {
      const held = listed.get(note.id)
      if (where === 'live' && (!held || !sameNote(held, note.known!.note)))
        unexpected(d, `the listing holds ${show(held)} for ${note.id}, acknowledged ${show(note.known!.note)}`)
      if (where === 'trash' && held) unexpected(d, `the listing holds ${note.id}, acknowledged in the trash`)
    }
  }
}

/** A write to the note every device of the account writes, with the version this device saw last or none. */
export async function writeShared(d: Device): Promise<void> {
  const shared = d.account.shared
  const mode = d.random.chance(0.7) ? 'current' : 'none'
  const headers = mode === 'current' && d.sharedVersion ? { 'if-match': `"${d.sharedVersion}"` } : undefined
  const pin = d.random.chance(0.2)
  const fields = pin ? undefined : newFields(d, 'shared', false)
  const a = pin
    ? await d.request('PUT', `/update-note-pinned/${shared.id}`, {
        body: { isPinned: d.random.chance(0.5) },
        ...(headers && { headers }),
      })
    : await d.request('PUT', `/edit-note/${shared.id}`, {
        body: { title: fields!.title, content: fields!.content, tags: fields!.tags },
        ...(headers && { headers }),
      })
  if (a.status === 200) {
    const note = a.json.note as NoteJson
    shared.answers.push(note)
    d.sharedVersion = note.updatedOn
  } else if (a.status === 412) {
    if (!headers) unexpected(d, 'a write to the shared note without If-Match answered 412')
    d.sharedVersion = (a.json.note as NoteJson).updatedOn
  } else if (a.status === 404) {
    unexpected(d, 'the shared note answered 404')
  } else if (uncertain(a)) {
    shared.uncertain.push(fields ?? { title: '', content: '', tags: [], isPinned: false })
    if (pin) shared.uncertainPins = true
  }
}

/** Many writes at once from one device, each to a note of its own (a device catching up after being offline): the load in flight that revocations and deletions race. */
export async function burst(d: Device): Promise<void> {
  const live = d.account.notesOf(d.prefix, 'live')
  const picked = live.filter(() => d.random.chance(0.5)).slice(0, 10)
  const adds = Array.from({ length: 1 + d.random.below(4) }, () => addNote(d))
  await Promise.all([...picked.map((n) => (d.random.chance(0.7) ? editNote(d, n) : pinNote(d, n))), ...adds])
}
