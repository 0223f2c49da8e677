#!/usr/bin/env node
import { parseArgs } from 'node:util'
import { USERS_USAGE, runUsers } from './accounts-cli/users.js'
import { serve } from './cluster.js'
import { ConfigError, parseConfig } from './config.js'
import { migrateSqlite, openSqliteDatabase } from './store/sqlite/index.js'
import { TRANSFER_USAGE, transferCommands } from './transfer/commands.js'
import { escapeForTerminal } from './unicode.js'

const USAGE = `usage: notes-service <command>

commands:
  serve     run the HTTP server (default); configured by environment variables (docs/configuration.md)
            --workers N   run N processes sharing the port (default: WORKERS, else 1; "auto": one per core)
  migrate   apply database migrations and exit (PostgreSQL when DATABASE_URL is set, else SQLite)
${TRANSFER_USAGE}${USERS_USAGE}`

async function main(argv: string[]): Promise<number> {
  // The transfer and users commands parse their own options.
  const transfer = argv[0] === undefined ? undefined : transferCommands[argv[0]]
  if (transfer) return transfer(argv.slice(1), process.env)
  if (argv[0] === 'users') return runUsers(argv.slice(1), process.env)
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { help: { type: 'boolean', short: 'h' }, workers: { type: 'string', short: 'w' } },
  })
  const command = positionals[0] ?? 'serve'
  if (values.help) {
    process.stdout.write(USAGE)
    return 0
  }
  // --workers is read like the WORKERS variable, so both accept the same values.
  const config = parseConfig(values.workers === undefined ? process.env : { ...process.env, WORKERS: values.workers })
  switch (command) {
    case 'serve':
      return serve(config, config.workers) // -1: keeps running
    case 'migrate': {
      if (config.databaseUrl) {
        // Loaded only here: an SQLite setup never needs `pg`.
        const { describeDatabase, migrateDatabase } = await import('./store/postgres/index.js')
        const applied = await migrateDatabase({
          url: config.databaseUrl,
          connectTimeoutMs: config.databaseConnectTimeoutMs,
        })
        process.stdout.write(`applied ${applied} migration(s) to ${describeDatabase(config.databaseUrl)}\n`)
        return 0
      }
      const db = openSqliteDatabase({ dataDir: config.dataDir, synchronous: config.sqliteSynchronous })
      const applied = migrateSqlite(db)
      db.close()
      process.stdout.write(`applied ${applied} migration(s)\n`)
      return 0
    }
    default:
      process.stderr.write(`unknown command "${escapeForTerminal(command)}"\n${USAGE}`)
      return 2
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code
  },
  (err: unknown) => {
    // One line, not a stack trace; escaped, since a message may quote a value or a stored text.
    const message =
      err instanceof ConfigError
        ? `invalid configuration: ${err.message}`
        : err instanceof Error
          ? err.message
          : String(err)
    process.stderr.write(`notes-service: ${escapeForTerminal(message)}\n`)
    process.exitCode = 1
  },
)
