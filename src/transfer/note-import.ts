// Writes what an import reader yields (formats/) into one account, under the same rules as the API's writes: the
// note's limits, the account's quotas, the feed. Every note's id, and every file's, is derived from the account and
// the item's source key, so a second run of the same file finds what the first wrote and adds nothing, and an
// interrupted run, run again, finishes (docs/migration.md, "From other notes apps").
import { createHash } from 'node:crypto'
import { type AttachmentRecord, attachmentUrl } from '../attachment-shape.js'
import { ContractError, badRequest } from '../errors.js'
import { ArchiveError } from './formats/archive.js'
import type { ImportCounts, ImportSummary, SkippedItem } from '../import-shape.js'
import type { ImportedFile, ImportedNote, ImportSource } from './formats/items.js'
import { IMPORT_FORMATS, MalformedImportError } from './formats/items.js'
import { openImport } from './formats/open-input.js'
import { IMPORT_READERS } from './formats/readers.js'
import { type NoteRecord } from '../note-shape.js'
import { NoteQuotaExceededError, SessionEndedError, type Store } from '../store/types.js'
import type { AttachmentService } from '../services/attachments.js'
import { checkImportedNote, importedTags } from './note-import-checks.js'

export interface ImportOptions {
  dryRun?: boolean
  /** Called after each item; the caller decides how often to tell anyone. */
  onProgress?: (counts: Readonly<ImportCounts>) => void
}

/** How many skipped items a summary lists by name: enough to act on, bounded for a file of a million bad items. */
export const MAX_LISTED_SKIPS = 1000

/** An id in the ObjectId shape (services/ids.ts) that only this account and this source key give. */
export function importedId(userId: string, ...parts: string[]): string {
  const hash = createHash('sha256').update(['notes-service import', userId, ...parts].join('\0'))
  return hash.digest('hex').slice(0, 24)
}

/** Stops the import: the quota's message, with how far it got. */
class ImportStop extends Error {}

export class NoteImportService {
  constructor(
    private readonly store: Store,
    /** Where files go; undefined: this server keeps no attachments, and files are skipped with that reason. */
    private readonly attachments: AttachmentService | undefined,
    /** TRASH_DAYS: with 0 there is no trash, and trashed items are skipped. */
    private readonly trashDays: number,
  ) {}

  /**
   * The file (or folder) at `path` as a source of the format it holds; 400 naming the format and the problem when it
   * holds none or is refused. `name`: what the person called it, when `path` is a copy (an upload).
   */
  async open(path: string, name?: string): Promise<ImportSource> {
    try {
      return await openImport(path, IMPORT_READERS, name)
    } catch (err) {
      throw malformedAsContract(err)
    }
  }

  /**
   * Imports what `source` yields into the account. A source found malformed part-way throws 400 (what came before
   * stays imported); a quota ends the import early, with `stopped` saying so.
   */
  async run(userId: string, source: ImportSource, options: ImportOptions = {}): Promise<ImportSummary> {
    try {
      return await this.runItems(userId, source, options)
    } catch (err) {
      throw malformedAsContract(err)
    }
  }

  private async runItems(userId: string, source: ImportSource, options: ImportOptions): Promise<ImportSummary> {
    const dryRun = options.dryRun === true
    const counts: ImportCounts = { items: 0, imported: 0, alreadyPresent: 0, skipped: 0, attachments: 0 }
    const skipped: SkippedItem[] = []
    const skip = (item: SkippedItem) => {
      counts.skipped += 1
      if (skipped.length < MAX_LISTED_SKIPS) skipped.push(item)
    }
    const trashed = new Set((await this.store.listTrash(userId)).map((note) => note._id))
    let stopped: string | null = null
    for await (const event of source.items()) {
      counts.items += 1
      if ('skipped' in event) skip(event.skipped)
      else {
        try {
          await this.importNote(userId, event.note, { dryRun, counts, skip, trashed })
        } catch (err) {
          if (!(err instanceof ImportStop)) throw err
          counts.items -= 1
          stopped =
            `${err.message}. Stopped before "${event.note.label}", after ${counts.items} item(s): ` +
            'what was imported stays; make room and import the same file again to add the rest'
          break
        }
      }
      options.onProgress?.(counts)
    }
    const { skipped: skippedCount, ...rest } = counts
    return { format: IMPORT_FORMATS[source.format], dryRun, ...rest, skipped, skippedCount, stopped }
  }

  private async importNote(
    userId: string,
    item: ImportedNote,
    run: {
      dryRun: boolean
      counts: ImportCounts
      skip: (item: SkippedItem) => void
      trashed: Set<string>
    },
  ): Promise<void> {
    const { counts, skip } = run
    if (item.trashed && this.trashDays === 0) {
      skip({ label: item.label, reason: 'it is in the trash, and this server keeps no trash (TRASH_DAYS=0)' })
      return
    }
    const id = importedId(userId, item.key)
    if (run.trashed.has(id) || (await this.store.findNote(userId, id))) {
      counts.alreadyPresent += 1
      return
    }
    // Checked with its files' links as long as they will be, so that nothing of a note refused for its length is stored.
    const problem = checkImportedNote(item)
    if (problem) {
      skip({ label: item.label, reason: problem })
      return
    }
    if (run.dryRun) {
      counts.imported += 1
      counts.attachments += item.files.length
      return
    }
    const stored: AttachmentRecord[] = []
    const links = new Map<string, string>()
    try {
      for (const file of item.files) {
        const record = await this.storeFile(userId, item, file, skip)
        if (record && !stored.some((known) => known._id === record._id)) stored.push(record)
        links.set(file.ref, record ? attachmentUrl(record) : file.name)
      }
      const content = withLinks(item.content, links)
      const now = new Date().toISOString()
      const createdOn = item.createdOn ?? item.updatedOn ?? now
      const note: NoteRecord = {
        _id: id,
        title: item.title,
        content,
        tags: importedTags(item.tags),
        isPinned: item.isPinned,
        userId,
        createdOn,
        updatedOn: item.updatedOn ?? createdOn,
      }
      if (!(await this.insert(note))) {
        counts.alreadyPresent += 1
        return
      }
    } catch (err) {
      // Files stored for a note that was not written go with it: nothing is left half-written.
      for (const record of stored) await this.attachments?.delete(userId, record._id).catch(() => {})
      throw err
    }
    if (item.trashed && !(await this.moveToTrash(userId, id))) {
      counts.alreadyPresent += 1
      return
    }
    if (item.trashed) run.trashed.add(id)
    counts.imported += 1
    counts.attachments += stored.length
  }

  /**
   * Moves the note just written to the trash: false when a concurrent run of the same import has trashed its own
   * copy first (the trash holds the id already), and this copy is erased again.
   */
  private async moveToTrash(userId: string, id: string): Promise<boolean> {
    try {
      await this.store.deleteNote(userId, id, { expected: undefined, trashedOn: new Date().toISOString() })
      return true
    } catch (err) {
      if (!(await this.inTrash(userId, id))) throw err
      await this.store.deleteNote(userId, id, { expected: undefined, trashedOn: undefined })
      return false
    }
  }

  /** Read only when a write failed, so a race is told from a fault: the whole trash is a small read. */
  private async inTrash(userId: string, id: string): Promise<boolean> {
    return (await this.store.listTrash(userId)).some((note) => note._id === id)
  }

  /** Inserts the note: false when a concurrent run of the same import wrote it first (and may have trashed it). */
  private async insert(note: NoteRecord): Promise<boolean> {
    try {
      if (!(await this.store.insertNote(note))) throw new SessionEndedError()
      return true
    } catch (err) {
      if (err instanceof NoteQuotaExceededError)
        throw new ImportStop(
          err.limit === 'notes'
            ? 'The account holds as many notes as it may'
            : 'The account holds as many bytes of notes as it may',
        )
      if (err instanceof SessionEndedError) throw err
      if ((await this.store.findNote(note.userId, note._id)) || (await this.inTrash(note.userId, note._id)))
        return false
      throw err
    }
  }

  /** The file's attachment, stored now or by an earlier run; undefined when it is skipped (and said why). */
  private async storeFile(
    userId: string,
    item: ImportedNote,
    file: ImportedFile,
    skip: (item: SkippedItem) => void,
  ): Promise<AttachmentRecord | undefined> {
    const label = `${item.label}: ${file.name}`
    if (!this.attachments) {
      skip({ label, reason: 'this server keeps no attachments; the note is imported without the file' })
      return undefined
    }
    const id = importedId(userId, item.key, file.ref)
    const earlier = await this.store.findAttachment(userId, id)
    if (earlier) return earlier
    try {
      return await this.attachments.storeAs(userId, id, { filename: file.name, bytes: await file.open() })
    } catch (err) {
      if (err instanceof ContractError && err.statusCode === 413) {
        skip({ label, reason: `${err.message}; the note is imported without the file` })
        return undefined
      }
      if (err instanceof ContractError && err.statusCode === 403) throw new ImportStop(err.message)
      if (err instanceof ContractError || err instanceof SessionEndedError) throw err
      const raced = await this.store.findAttachment(userId, id)
      if (raced) return raced
      throw err
    }
  }
}

/** A refused or malformed file as the answer a client gets: 400 with the reader's words. */
function malformedAsContract(err: unknown): unknown {
  if (err instanceof MalformedImportError) return badRequest(err.message)
  if (err instanceof ArchiveError) return badRequest(`The archive cannot be read: ${err.message}`)
  // A zip's entry whose compressed bytes are damaged, or hold more or fewer bytes than its header says.
  const code = (err as { code?: unknown } | undefined)?.code
  const message = err instanceof Error ? err.message : ''
  if ((typeof code === 'string' && code.startsWith('Z_')) || /bytes in the stream|not enough bytes/.test(message))
    return badRequest(`The archive is damaged: ${message}`)
  return err
}

/**
 * `content` with each ref replaced by its link, in one pass, the longest ref first where two start alike: a reader's
 * ref may be the exact text of a link, and one link's text can begin another's.
 */
export function withLinks(content: string, links: ReadonlyMap<string, string>): string {
  if (links.size === 0) return content
  const refs = [...links.keys()].sort((a, b) => b.length - a.length)
  const pattern = new RegExp(refs.map((ref) => ref.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g')
  return content.replace(pattern, (ref) => links.get(ref)!)
}
