// A decrypted Standard Notes backup (docs/migration.md, "Standard Notes"): {version, items}, a .txt or .json file alone
// or in the backup's zip. Notes and the tags that reference them are read; an encrypted backup is refused whole.
import type { Archive, ArchiveEntry } from './archive.js'
import { readEntryBytes } from './archive.js'
import {
  type ArchiveFormat,
  IMPORT_FORMATS,
  type ImportEvent,
  type ImportedNote,
  MAX_SOURCE_NOTE_BYTES,
  MalformedImportError,
  isoDate,
} from './items.js'
import { archiveSource, baseName, entryHead, extensionOf, isObject, stringField } from './reader-kit.js'

const NAME = IMPORT_FORMATS['standard-notes']

/** The backup holds every item at once: read whole, so bounded by more than any account's items take. */
const MAX_BACKUP_BYTES = 512 * 2 ** 20
const PROBE_BYTES = 64 * 1024
const PROBE_ENTRIES = 5
/** Where the app keeps pinned and archived in backups of its older versions. */
const APP_DATA = 'org.standardnotes.sn'

/** The backup file: the one the app names so first, then any .txt or .json, smallest path first as listed. */
function candidates(archive: Archive): ArchiveEntry[] {
  const files = archive.entries.filter((entry) => ['txt', 'json'].includes(extensionOf(entry.path)))
  const named = files.filter((entry) => /backup and import file/i.test(baseName(entry.path)))
  return [...named, ...files.filter((entry) => !named.includes(entry))]
}

/** The start of a backup: an object whose first key is one the app writes first. */
async function looksLikeBackup(entry: ArchiveEntry): Promise<boolean> {
  const head = await entryHead(entry, PROBE_BYTES)
  return /^\uFEFF?\s*\{\s*"(version|items|keyParams|auth_params)"\s*:/.test(head) && head.includes('"items"')
}

async function backupEntry(archive: Archive): Promise<ArchiveEntry | undefined> {
  for (const entry of candidates(archive).slice(0, PROBE_ENTRIES)) if (await looksLikeBackup(entry)) return entry
  return undefined
}

const isEncrypted = (item: Record<string, unknown>) =>
  'enc_item_key' in item || (typeof item.content === 'string' && /^00\d:/.test(item.content))

/** A note's flag: the content's own field, or its place in appData in older backups. */
function flag(content: Record<string, unknown>, name: string): boolean {
  if (typeof content[name] === 'boolean') return content[name]
  const appData = isObject(content.appData) ? content.appData[APP_DATA] : undefined
  return isObject(appData) && appData[name] === true
}

const dateOf = (value: unknown) => (typeof value === 'string' ? isoDate(new Date(value)) : undefined)

export function standardNote(item: Record<string, unknown>, tags: string[]): ImportedNote | { reason: string } {
  if (Buffer.byteLength(JSON.stringify(item)) > MAX_SOURCE_NOTE_BYTES) return { reason: 'too large' }
  const content = isObject(item.content) ? item.content : {}
  const createdOn = dateOf(item.created_at)
  if (createdOn === undefined) return { reason: 'created_at is missing or not a date' }
  // The app's own edit time when it kept one: updated_at also moves when only a tag or a sync touched the note.
  const appData = isObject(content.appData) ? content.appData[APP_DATA] : undefined
  const updatedOn = (isObject(appData) ? dateOf(appData.client_updated_at) : undefined) ?? dateOf(item.updated_at)
  if (updatedOn === undefined) return { reason: 'updated_at is missing or not a date' }
  const title = stringField(content.title)
  const noteTags = [...tags]
  if (flag(content, 'archived') && !noteTags.includes('archived')) noteTags.push('archived')
  return {
    key: `standard-notes:${stringField(item.uuid)}`,
    label: title.trim() !== '' ? title : stringField(item.uuid),
    title,
    content: stringField(content.text),
    tags: noteTags,
    isPinned: flag(content, 'pinned'),
    trashed: flag(content, 'trashed'),
    createdOn,
    updatedOn,
    files: [],
  }
}

/** Each note's tags by the note's uuid, in the order the tags come. */
function tagsByNote(items: Record<string, unknown>[]): Map<string, string[]> {
  const byNote = new Map<string, string[]>()
  for (const item of items) {
    if (item.content_type !== 'Tag' || !isObject(item.content)) continue
    const title = stringField(item.content.title).trim()
    if (title === '') continue
    for (const ref of Array.isArray(item.content.references) ? item.content.references.filter(isObject) : []) {
      if (ref.content_type !== 'Note' || typeof ref.uuid !== 'string') continue
      const tags = byNote.get(ref.uuid) ?? []
      if (!tags.includes(title)) tags.push(title)
      byNote.set(ref.uuid, tags)
    }
  }
  return byNote
}

async function* standardNotesItems(archive: Archive): AsyncGenerator<ImportEvent> {
  const entry = (await backupEntry(archive)) ?? candidates(archive)[0]
  if (!entry) throw new MalformedImportError(NAME, 'no backup file (.txt or .json) in it')
  if (entry.size > MAX_BACKUP_BYTES) throw new MalformedImportError(NAME, `${entry.path} is larger than we read`)
  let json: unknown
  try {
    json = JSON.parse((await readEntryBytes(entry, MAX_BACKUP_BYTES)).toString('utf8').replace(/^\uFEFF/, ''))
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err
    throw new MalformedImportError(NAME, `${entry.path} is not valid JSON (${err.message})`)
  }
  if (!isObject(json) || !Array.isArray(json.items))
    throw new MalformedImportError(NAME, `${entry.path} holds no list of items`)
  const items = json.items.filter(isObject).filter((item) => item.deleted !== true)
  if (items.some(isEncrypted))
    throw new MalformedImportError(
      NAME,
      'the backup is encrypted; export a decrypted backup (Preferences, Backups, "Download backup", decrypted) and import that',
    )
  const tags = tagsByNote(items)
  for (const [index, item] of items.entries()) {
    if (item.content_type !== 'Note') continue
    const uuid = stringField(item.uuid)
    if (uuid === '') {
      yield { skipped: { label: `items[${index}]`, reason: 'it has no uuid' } }
      continue
    }
    const note = standardNote(item, tags.get(uuid) ?? [])
    if ('reason' in note) {
      const title = isObject(item.content) ? stringField(item.content.title) : ''
      yield { skipped: { label: title.trim() !== '' ? title : uuid, reason: note.reason } }
    } else yield { note }
  }
}

export const standardNotesFormat: ArchiveFormat = {
  format: 'standard-notes',
  probe: async (archive) => (await backupEntry(archive)) !== undefined,
  source: (archive) => archiveSource('standard-notes', archive, () => standardNotesItems(archive)),
}
