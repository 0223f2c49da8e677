// What the transfer commands share on the command line: a usage error, its exit code 2, and the usage text.
import type { Env } from '../config.js'
import { escapeForTerminal } from '../unicode.js'

export const TRANSFER_USAGE = `  import    --users FILE --notes FILE [--trash FILE] [--history FILE] [--attachments DIR]
            [--strict] [--threads N]
            load mongoexport files of the original service, or an export's (see docs/migration.md)
  import    FILE --user EMAIL [--dry-run]
            import one account's notes from Google Keep, Evernote, Markdown, Simplenote,
            Standard Notes or a notes-service export (a file, a .zip or a folder)
  export    [--users FILE] [--notes FILE] [--trash FILE] [--history FILE] [--attachments DIR]
            [--user EMAIL] [--with-password-hashes] [--jsonArray] [--jsonFormat relaxed|canonical]
            write users, notes, the trash and the history as mongoexport does
            (notes to standard output by default), and the attachments' records and files
  export    --format markdown|json --user EMAIL [--out FILE] [--trash] [--history]
            one account's notes and files as a .zip (FILE "-": standard output)
  backup    FILE   consistent copy of the SQLite database, also while the server runs,
            and of the attachment files on disk (FILE.attachments/)
  attachments migrate --to disk|postgresql|s3
            move every attachment's bytes to another blob storage, also while servers run
`

export class UsageError extends Error {}

export type Command = (args: string[], env: Env) => Promise<number>

/** The command, answering a usage error with its message, the usage and exit code 2. */
export const withUsage =
  (run: Command): Command =>
  async (args, env) => {
    try {
      return await run(args, env)
    } catch (err) {
      const isUsage =
        err instanceof UsageError ||
        (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS'))
      if (!isUsage) throw err
      process.stderr.write(`notes-service: ${escapeForTerminal(err.message)}\nusage:\n${TRANSFER_USAGE}`)
      return 2
    }
  }
