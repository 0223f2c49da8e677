// `import FILE --user EMAIL` and `export --format F --user EMAIL`: one account's notes from another app, or its
// export as a .zip, on the command line (docs/migration.md). They run the service's own import and export, so the
// rules are the HTTP endpoints', without the upload's size limit; they work while servers run.
import { createWriteStream } from 'node:fs'
import { pipeline } from 'node:stream/promises'
import { parseArgs } from 'node:util'
import { openConfiguredBlobs } from '../blobs/configured.js'
import { type Env, parseConfig } from '../config.js'
import { ContractError } from '../errors.js'
import { emailKeyOf } from '../services/accounts.js'
import { AttachmentService } from '../services/attachments.js'
import { EXPORT_FORMATS, type ExportFormat, NoteExportService } from './note-export.js'
import type { ImportCounts, ImportSummary } from '../import-shape.js'
import { NoteImportService } from './note-import.js'
import { openCommandStore } from '../store/open.js'
import type { Store, TransferStore } from '../store/types.js'
import { escapeForTerminal } from '../unicode.js'
import { UsageError } from './usage.js'

const say = (text: string) => process.stderr.write(`${escapeForTerminal(text)}\n`)

/** The store and the account of `email`, and the services over them, closed after `use`. */
async function withAccount<T>(
  env: Env,
  email: string,
  use: (parts: { store: Store & TransferStore; userId: string; files: AttachmentService }) => Promise<T>,
): Promise<T> {
  const config = parseConfig(env)
  const store = await openCommandStore(config)
  try {
    const user = await store.findUserByEmailKey(emailKeyOf(email))
    if (!user) throw new UsageError(`no user has the email "${email}"`)
    const blobs = await openConfiguredBlobs(config)
    try {
      return await use({ store, userId: user._id, files: new AttachmentService(store, blobs, config.attachments) })
    } finally {
      await blobs.close()
    }
  } finally {
    await store.close()
  }
}

const countsLine = (c: Readonly<ImportCounts>) =>
  `${c.items} item(s): ${c.imported} imported, ${c.alreadyPresent} already present, ${c.skipped} skipped, ${c.attachments} file(s)`

export function describeImport(summary: ImportSummary): string {
  const lines = [
    `${summary.dryRun ? 'dry run of' : 'imported'} ${summary.format}: ${countsLine({ ...summary, skipped: summary.skippedCount })}`,
    ...summary.skipped.map((item) => `skipped ${item.label}: ${item.reason}`),
  ]
  if (summary.skippedCount > summary.skipped.length)
    lines.push(`and ${summary.skippedCount - summary.skipped.length} more skipped`)
  if (summary.stopped) lines.push(`stopped: ${summary.stopped}`)
  return lines.join('\n')
}

/** Exit codes: 0 all imported, 3 some items skipped, 1 stopped early or the file refused. */
export async function runAccountImport(args: string[], env: Env): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { user: { type: 'string' }, 'dry-run': { type: 'boolean', default: false } },
  })
  const [file] = positionals
  if (!file || positionals.length > 1 || !values.user)
    throw new UsageError('import FILE needs exactly one FILE and --user EMAIL')
  const trashDays = parseConfig(env).retention.trashDays
  return withAccount(env, values.user, async ({ store, userId, files }) => {
    const imports = new NoteImportService(store, files, trashDays)
    let last = Date.now()
    try {
      const source = await imports.open(file)
      say(`reading ${file} as ${source.format}`)
      const summary = await imports
        .run(userId, source, {
          dryRun: values['dry-run'],
          onProgress: (counts) => {
            if (Date.now() - last < 5000) return
            last = Date.now()
            say(countsLine(counts))
          },
        })
        .finally(() => source.close())
      process.stdout.write(`${escapeForTerminal(describeImport(summary))}\n`)
      return summary.stopped ? 1 : summary.skippedCount > 0 ? 3 : 0
    } catch (err) {
      if (!(err instanceof ContractError) || err.statusCode >= 500) throw err
      say(`notes-service: ${err.message}`)
      return 1
    }
  })
}

export async function runAccountExport(args: string[], env: Env): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      format: { type: 'string' },
      user: { type: 'string' },
      out: { type: 'string' },
      trash: { type: 'boolean', default: false },
      history: { type: 'boolean', default: false },
    },
  })
  const format = values.format as ExportFormat
  if (!EXPORT_FORMATS.includes(format))
    throw new UsageError(`--format must be markdown or json, got "${values.format}"`)
  if (!values.user) throw new UsageError('export --format needs --user EMAIL')
  return withAccount(env, values.user, async ({ store, userId, files }) => {
    const zip = new NoteExportService(store, files).export(userId, {
      format,
      trash: values.trash,
      history: values.history,
    })
    const out = values.out ?? `notes-${format}-${new Date().toISOString().slice(0, 10)}.zip`
    await pipeline(zip, out === '-' ? process.stdout : createWriteStream(out))
    if (out !== '-') say(`wrote ${out}`)
    return 0
  })
}
