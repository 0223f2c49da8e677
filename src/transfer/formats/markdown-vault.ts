// Reads Markdown files as notes (docs/migration.md, "Markdown"): an Obsidian vault, a Joplin "Markdown + Front
// Matter" export, or plain .md files, in a folder, a zip, or one file. Front matter gives the fields it names; linked
// and embedded files of the archive become attachments (markdown-links.ts). It is the format probed last.
import { posix } from 'node:path'
import type { Archive, ArchiveEntry } from './archive.js'
import { entryUtf8 } from './reader-kit.js'
import { parseFrontMatter, splitFrontMatter } from './front-matter.js'
import type { ArchiveFormat, ImportEvent } from './items.js'
import { MAX_SOURCE_NOTE_BYTES, isoDate } from './items.js'
import { VaultFiles, inlineTags, isMarkdownPath, linkFiles } from './markdown-links.js'

/**
 * Files that are no notes and no attachments: a dot-folder or dot-file anywhere (Obsidian's `.obsidian/` settings and
 * `.trash/`, `.git/`, macOS's `._` files) and macOS's `__MACOSX/`.
 */
const isHidden = (path: string) => path.split('/').some((part) => part.startsWith('.') || part === '__MACOSX')

/** The single folder every entry is in (`Vault/`), or ''. */
function topFolder(entries: ArchiveEntry[]): string {
  const first = entries[0]?.path.split('/')
  if (!first || first.length < 2) return ''
  const folder = `${first[0]}/`
  return entries.every((entry) => entry.path.startsWith(folder)) ? folder : ''
}

/** Joplin keeps resources in `_resources/` beside the notebooks: files there are attachments, never notes. */
const isNote = (path: string, root: string) =>
  isMarkdownPath(path) && !isHidden(path) && !path.startsWith(`${root}_resources/`)

export const markdownFormat: ArchiveFormat = {
  format: 'markdown',
  async probe(archive) {
    const root = topFolder(archive.entries)
    return archive.entries.some((entry) => isNote(entry.path, root))
  },
  source(archive) {
    return { format: 'markdown', items: () => readVault(archive), close: () => archive.close() }
  },
}

async function* readVault(archive: Archive): AsyncGenerator<ImportEvent> {
  const visible = archive.entries.filter((entry) => !isHidden(entry.path))
  const root = topFolder(visible)
  const vault = new VaultFiles(visible, root)
  for (const entry of visible) {
    if (!isNote(entry.path, root)) continue
    if (entry.size > MAX_SOURCE_NOTE_BYTES)
      yield { skipped: { label: entry.path, reason: `it is too large (over ${MAX_SOURCE_NOTE_BYTES} bytes)` } }
    else yield await readNote(entry, vault)
  }
}

async function readNote(entry: ArchiveEntry, vault: VaultFiles): Promise<ImportEvent> {
  const label = entry.path
  const skip = (reason: string): ImportEvent => ({ skipped: { label, reason } })
  const text = await entryUtf8(entry)
  if (text === undefined) return skip('it is not UTF-8 text')
  const { yaml, body } = splitFrontMatter(text)
  let properties: Record<string, unknown> = {}
  if (yaml !== undefined) {
    const parsed = parseFrontMatter(yaml)
    if ('problem' in parsed) return skip(parsed.problem)
    properties = parsed.properties
  }
  const created = sourceDate(properties.created ?? properties.date)
  if (created === null) return skip(`its created date is not a date: ${String(properties.created ?? properties.date)}`)
  const updated = sourceDate(properties.updated)
  if (updated === null) return skip(`its updated date is not a date: ${String(properties.updated)}`)

  let title = scalarText(properties.title)
  let content = body
  if (title === undefined) {
    const heading = /^(?:[ \t]*\r?\n)*[ \t]{0,3}# +(.*?)(?:[ \t]+#+)?[ \t]*(?:\r?\n(?:[ \t]*\r?\n)*|$)/.exec(body)
    if (heading?.[1]) {
      title = heading[1]
      content = body.slice(heading[0].length)
    } else title = posix.basename(entry.path).replace(/\.(md|markdown)$/i, '')
  }
  const linked = linkFiles(content, entry.path, vault)
  return {
    note: {
      key: `markdown:${entry.path}`,
      label,
      title,
      content: linked.content,
      tags: uniqueTags([...frontMatterTags(properties.tags ?? properties.tag), ...inlineTags(content)]),
      isPinned: properties.pinned === true,
      trashed: false,
      createdOn: created,
      updatedOn: updated,
      files: linked.files,
    },
  }
}

const scalarText = (value: unknown): string | undefined =>
  typeof value === 'string'
    ? value
    : typeof value === 'number' || typeof value === 'boolean'
      ? String(value)
      : undefined

/** Tags as a YAML list or as one string of them, separated by commas or spaces, each with or without its `#`. */
function frontMatterTags(value: unknown): string[] {
  const list = Array.isArray(value) ? value.map(scalarText) : [scalarText(value)]
  return list
    .flatMap((item) => (item === undefined ? [] : Array.isArray(value) ? [item] : item.split(/[,\s]+/)))
    .map((tag) => tag.trim().replace(/^#+/, ''))
    .filter((tag) => tag !== '')
}

/** Tags once each, compared without case as Obsidian does; the first spelling is kept. */
function uniqueTags(tags: string[]): string[] {
  const seen = new Set<string>()
  return tags.filter((tag) => {
    const key = tag.toLowerCase()
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

const DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?)?[ \t]*(Z|[+-]\d{2}(?::?\d{2})?)?$/i

/**
 * A front matter date as ISO 8601: ISO 8601 itself, `YYYY-MM-DD`, or `YYYY-MM-DD HH:mm[:ss]`, a time without a zone
 * read as UTC. Undefined when there is none, null when it is not a date.
 */
export function sourceDate(value: unknown): string | undefined | null {
  if (value === undefined || value === null || value === '') return undefined
  if (value instanceof Date) return isoDate(value) ?? null
  const match = typeof value === 'string' ? DATE.exec(value.trim()) : null
  if (!match) return null
  const [, year, month, day, hour = '00', minute = '00', second = '00', fraction = '', zone = 'Z'] = match
  const offset = /^[+-]\d{2}$/.test(zone)
    ? `${zone}:00`
    : zone.length === 5
      ? `${zone.slice(0, 3)}:${zone.slice(3)}`
      : zone
  const time = new Date(
    `${year}-${month}-${day}T${hour}:${minute}:${second}${fraction.slice(0, 4)}${offset.toUpperCase()}`,
  )
  // Date.parse rolls over days a month lacks (February 30th); such a date is not one.
  const asUtc = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)))
  if (asUtc.getUTCMonth() !== Number(month) - 1 || asUtc.getUTCDate() !== Number(day)) return null
  return isoDate(time) ?? null
}
