// The `import`, `export`, `backup` and `attachments` commands of the CLI: arguments, the store, the output.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { availableParallelism } from 'node:os'
import { parseArgs } from 'node:util'
import { openConfiguredBlobs } from '../blobs/configured.js'
import type { BlobStorage } from '../blobs/types.js'
import { type Config, type Env, type NoteQuotaConfig, parseConfig } from '../config.js'
import { backupSqlite } from '../store/sqlite/backup.js'
import { openCommandStore } from '../store/open.js'
import type { TransferStore } from '../store/types.js'
import { escapeForTerminal } from '../unicode.js'
import { runAccountExport, runAccountImport } from './account-transfer.js'
import { runAttachments } from './attachment-commands.js'
import { type FilesBackup, backupAttachmentFiles, filesBesideBackup } from './backup-files.js'
import { UnknownUserError, exportData } from './export.js'
import { StrictStop, describeSummary, importData, phasesOf } from './import.js'
import { Progress } from './progress.js'
import { type Command, UsageError, withUsage } from './usage.js'

export { TRANSFER_USAGE } from './usage.js'

/** Runs `use` with the configured blob storage when `needed`, closing it after. */
async function withBlobs<T>(config: Config, needed: boolean, use: (blobs?: BlobStorage) => Promise<T>): Promise<T> {
  if (!needed) return use()
  const blobs = await openConfiguredBlobs(config)
  try {
    return await use(blobs)
  } finally {
    await blobs.close()
  }
}

/** libuv's thread pool, where argon2 runs: its size is fixed before any of our code runs. */
const threadPoolSize = (env: Env) => Number(env.UV_THREADPOOL_SIZE) || 4

// What the import needs from its start: a pool of `threads`, and on Linux a fixed mmap threshold, without
// which glibc keeps each freed 19 MiB argon2id block, per thread, for good (docs/performance.md, "Import").
function missingEnvironment(env: Env, threads: number): Record<string, string> {
  const missing: Record<string, string> = {}
  if (threads > threadPoolSize(env)) missing.UV_THREADPOOL_SIZE = String(threads)
  if (process.platform === 'linux' && env.MALLOC_MMAP_THRESHOLD_ === undefined)
    missing.MALLOC_MMAP_THRESHOLD_ = String(128 * 1024)
  return missing
}

/** Runs this same command again, once, with `extra` added to the environment. */
async function rerunWith(extra: Record<string, string>): Promise<number> {
  const env = { ...process.env, ...extra }
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit', env })
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal))
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null] // rejects on 'error'
  return code ?? (signal ? 1 : 0)
}

/** One account's file from another app (a FILE and --user), or the original service's collections. */
async function runImport(args: string[], env: Env): Promise<number> {
  // FILE comes first or --user is given; the collections' form takes neither (its files follow their options).
  const positionalFirst = args[0] !== undefined && !args[0].startsWith('-')
  if (positionalFirst || args.some((arg) => arg === '--user' || arg.startsWith('--user=')))
    return runAccountImport(args, env)
  const { values } = parseArgs({
    args,
    options: {
      users: { type: 'string' },
      notes: { type: 'string' },
      trash: { type: 'string' },
      history: { type: 'string' },
      attachments: { type: 'string' },
      strict: { type: 'boolean', default: false },
      threads: { type: 'string' },
    },
  })
  if (!values.users && !values.notes && !values.trash && !values.history && !values.attachments) {
    throw new UsageError(
      'import needs at least one of --users FILE, --notes FILE, --trash FILE, --history FILE and --attachments DIR',
    )
  }
  const threads = values.threads === undefined ? availableParallelism() : Number(values.threads)
  if (!Number.isInteger(threads) || threads < 1)
    throw new UsageError(`--threads must be a whole number above 0, got "${values.threads}"`)
  const missing = missingEnvironment(env, threads)
  if (Object.keys(missing).length > 0) return rerunWith(missing)

  const poolSize = threadPoolSize(env)
  const config = parseConfig(env)
  const store = await openCommandStore(config)
  const progress = new Progress(process.stderr)
  progress.note(`importing; hashing passwords on ${poolSize} threads`)
  try {
    const attachmentsDir = values.attachments
    const summary = await withBlobs(config, attachmentsDir !== undefined, (blobs) =>
      importData({
        store,
        ...(values.users ? { usersFile: values.users } : {}),
        ...(values.notes ? { notesFile: values.notes } : {}),
        ...(values.trash ? { trashFile: values.trash } : {}),
        ...(values.history ? { historyFile: values.history } : {}),
        ...(attachmentsDir && blobs ? { attachments: { dir: attachmentsDir, blobs } } : {}),
        strict: values.strict,
        hashConcurrency: poolSize * 2, // a finished hash always finds the next one queued
        progress,
      }),
    )
    process.stdout.write(`${describeSummary(summary)}\n`)
    await warnOverQuota(store, config.noteQuota)
    const rejected = phasesOf(summary).reduce((sum, [, phase]) => sum + phase.rejected, 0)
    return rejected > 0 ? 3 : 0 // 3: finished, but with rejected records
  } catch (err) {
    if (!(err instanceof StrictStop)) throw err
    process.stderr.write(
      `stopped (--strict) at ${escapeForTerminal(err.message)}\nrecords before it are imported; fix the file and run again (import skips what is already there)\n`,
    )
    return 1
  } finally {
    await store.close()
  }
}

/** The import keeps every note it moves, quota or not; accounts it leaves over the quota (the store's) get 403 on add-note. */
async function warnOverQuota(store: TransferStore, noteQuota: NoteQuotaConfig): Promise<void> {
  if (noteQuota.notes === 0 && noteQuota.megabytes === 0) return
  const over = await store.accountsOverQuota()
  if (over === 0) return
  process.stderr.write(
    `warning: ${over} account(s) keep more than MAX_NOTES_PER_ACCOUNT=${noteQuota.notes} notes or MAX_NOTE_MB_PER_ACCOUNT=${noteQuota.megabytes} MB ` +
      '(the import is not held to the quota); their add-note answers 403 until they delete notes\n',
  )
}

/** One account as a .zip (--format), or the collections as mongoexport writes them. */
async function runExport(args: string[], env: Env): Promise<number> {
  if (args.some((arg) => arg === '--format' || arg.startsWith('--format='))) return runAccountExport(args, env)
  const { values } = parseArgs({
    args,
    options: {
      users: { type: 'string' },
      notes: { type: 'string' },
      trash: { type: 'string' },
      history: { type: 'string' },
      attachments: { type: 'string' },
      user: { type: 'string' },
      'with-password-hashes': { type: 'boolean', default: false },
      jsonArray: { type: 'boolean', default: false },
      jsonFormat: { type: 'string', default: 'relaxed' },
    },
  })
  if (values.jsonFormat !== 'relaxed' && values.jsonFormat !== 'canonical') {
    throw new UsageError(`--jsonFormat must be relaxed or canonical, got "${values.jsonFormat}"`)
  }
  const mode = values.jsonFormat
  const kept = values.trash !== undefined || values.history !== undefined
  const attachmentsDir = values.attachments
  const toStdout = values.users === undefined && values.notes === undefined && !kept && attachmentsDir === undefined
  const config = parseConfig(env)
  const store = await openCommandStore(config)
  try {
    const summary = await withBlobs(config, attachmentsDir !== undefined, (blobs) =>
      exportData({
        store,
        ...(values.users !== undefined ? { usersOut: values.users } : {}),
        ...(values.notes !== undefined || toStdout ? { notesOut: values.notes ?? '-' } : {}),
        ...(values.trash !== undefined ? { trashOut: values.trash } : {}),
        ...(values.history !== undefined ? { historyOut: values.history } : {}),
        ...(attachmentsDir !== undefined && blobs
          ? {
              attachmentsOut: {
                dir: attachmentsDir,
                blobs,
                report: (message: string) => process.stderr.write(`${escapeForTerminal(message)}\n`),
              },
            }
          : {}),
        ...(values.user !== undefined ? { userEmail: values.user } : {}),
        withPasswordHashes: values['with-password-hashes'],
        format: values.jsonArray ? 'array' : 'lines',
        mode,
      }),
    )
    const counts = [`${summary.users} user(s)`, `${summary.notes} note(s)`]
    if (kept) counts.push(`${summary.trash} trashed note(s)`, `${summary.revisions} revision(s)`)
    if (attachmentsDir !== undefined) counts.push(`${summary.attachments} attachment(s)`)
    process.stderr.write(`exported ${counts.slice(0, -1).join(', ')} and ${counts.at(-1)}\n`)
    if (summary.attachmentsLeftOut === 0) return 0
    process.stderr.write(`${summary.attachmentsLeftOut} attachment(s) left out, each reported above\n`)
    return 3
  } catch (err) {
    if (!(err instanceof UnknownUserError)) throw err
    process.stderr.write(`notes-service: ${escapeForTerminal(err.message)}\n`) // it quotes the email given
    return 1
  } finally {
    await store.close()
  }
}

async function runBackup(args: string[], env: Env): Promise<number> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} })
  const [file] = positionals
  if (!file || positionals.length > 1) throw new UsageError('backup needs exactly one FILE')
  const { dataDir } = parseConfig(env)
  const filesDir = filesBesideBackup(file)
  let files: FilesBackup | undefined
  const result = await backupSqlite(dataDir, file, {
    beforePlacing: async (attachments) => {
      files = await backupAttachmentFiles(dataDir, filesDir, attachments)
    },
  })
  const lines = [`backup written to ${result.file}: ${result.users} user(s), ${result.notes} note(s), integrity ok`]
  if (files?.copied) lines.push(`${files.copied} attachment file(s) copied to ${filesDir}, sha256 checked`)
  if (files?.elsewhere)
    lines.push(`${files.elsewhere} attachment(s) kept in another blob storage (S3) are not copied: back it up too`)
  if (files?.erased) lines.push(`${files.erased} attachment(s) erased while the backup ran have no file in it`)
  process.stdout.write(`${lines.join('\n')}\n`)
  return 0
}

export const transferCommands: Record<string, Command> = {
  import: withUsage(runImport),
  export: withUsage(runExport),
  backup: withUsage(runBackup),
  attachments: withUsage(runAttachments),
}
