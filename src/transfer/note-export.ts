// An account's export, streamed as a zip in the format asked for (docs/migration.md, "Export"): the store is read
// in keyset pages as the zip is taken, so neither the account's size nor the download's speed sets the memory.
// An attachment whose bytes are missing is left out rather than failing the whole download.
import type { Readable } from 'node:stream'
import type { AttachmentRecord } from '../attachment-shape.js'
import { ContractError } from '../errors.js'
import type { AccountExport, ExportedFile } from './formats/export-input.js'
import { jsonExport } from './formats/json-export.js'
import { markdownExport } from './formats/markdown-export.js'
import type { ExportReads } from '../store/types.js'
import { paged } from './export-pages.js'
import type { AttachmentService } from '../services/attachments.js'

export const EXPORT_FORMATS = ['markdown', 'json'] as const
export type ExportFormat = (typeof EXPORT_FORMATS)[number]

export interface ExportChoice {
  format: ExportFormat
  trash: boolean
  history: boolean
}

const PAGE = 500

/** The records of export-pages.ts's keyset pages, one at a time. */
async function* pagesOf<T>(page: (after: T | undefined) => Promise<T[]>): AsyncGenerator<T> {
  for await (const records of paged(page)) yield* records
}

export class NoteExportService {
  constructor(
    private readonly reads: ExportReads,
    /** Undefined: this server keeps no attachments, and the export holds none. */
    private readonly attachments: AttachmentService | undefined,
  ) {}

  /** The account's export; `exportedOn` names it (and the file). */
  export(userId: string, choice: ExportChoice, exportedOn = new Date().toISOString()): Readable {
    const { reads } = this
    const account: AccountExport = {
      exportedOn,
      notes: pagesOf((after) => reads.notesAfter(after?._id, PAGE, userId)),
      trash: choice.trash ? pagesOf((after) => reads.trashAfter(after?._id, PAGE, userId)) : undefined,
      history: choice.history ? pagesOf((after) => reads.revisionsAfter(after, PAGE, userId)) : undefined,
      attachments: this.files(userId),
    }
    return choice.format === 'markdown' ? markdownExport(account) : jsonExport(account)
  }

  /** The account's files whose bytes can be read, each opened when the zip gets to it. */
  private async *files(userId: string): AsyncGenerator<ExportedFile> {
    const service = this.attachments
    if (!service) return
    for await (const record of pagesOf<AttachmentRecord>((after) =>
      this.reads.attachmentsAfter(after?._id, PAGE, userId),
    )) {
      // Missing bytes answer 404 (AttachmentService.read): the file is left out; any other failure ends the export.
      const bytes = await service.read(record).catch((err: unknown) => {
        if (err instanceof ContractError && err.statusCode === 404) return undefined
        throw err
      })
      if (bytes) yield { record, open: async () => bytes }
    }
  }
}
