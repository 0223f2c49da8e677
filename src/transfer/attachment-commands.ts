// notes-service attachments migrate --to DRIVER: the command line of blob-migration.ts. It opens the target and
// every other driver the configuration can open (the bytes may be in any), prints its progress on standard error
// and its summary on standard output, and exits 1 when any record failed.
import { parseArgs } from 'node:util'
import { blobDriversOf, openBlobDriver } from '../blobs/configured.js'
import type { BlobDriverName, BlobStorage } from '../blobs/types.js'
import { type Env, parseConfig } from '../config.js'
import { openCommandStore } from '../store/open.js'
import { escapeForTerminal } from '../unicode.js'
import { migrateAttachments } from './blob-migration.js'
import { UsageError } from './usage.js'

const DRIVERS: readonly BlobDriverName[] = ['disk', 'postgresql', 's3']

/** What a configuration needs for a driver it cannot open. */
const NEEDS: Record<BlobDriverName, string> = {
  disk: 'DATA_DIR',
  postgresql: "DATABASE_URL (the bytes live in the store's database)",
  s3: 'ATTACHMENTS_S3_BUCKET and the other ATTACHMENTS_S3_ settings',
}

export async function runAttachments(args: string[], env: Env): Promise<number> {
  const { positionals, values } = parseArgs({ args, allowPositionals: true, options: { to: { type: 'string' } } })
  if (positionals[0] !== 'migrate' || positionals.length > 1)
    throw new UsageError('attachments needs: migrate --to DRIVER')
  const to = values.to as BlobDriverName | undefined
  if (to === undefined || !DRIVERS.includes(to))
    throw new UsageError(`--to must be one of ${DRIVERS.join(', ')}, got "${values.to ?? ''}"`)
  const config = parseConfig(env)
  const drivers = blobDriversOf(config)
  if (!drivers.includes(to)) throw new Error(`attachments migrate --to ${to} needs ${NEEDS[to]}`)
  const store = await openCommandStore(config)
  const opened: BlobStorage[] = []
  try {
    for (const driver of [to, ...drivers.filter((d) => d !== to)]) opened.push(await openBlobDriver(config, driver))
    const [target, ...others] = opened
    process.stderr.write(`moving attachments to ${to} from ${others.map((o) => o.driver).join(', ')}\n`)
    const summary = await migrateAttachments({
      store,
      target: target!,
      others,
      report: (message) => process.stderr.write(`${escapeForTerminal(message)}\n`),
      progress: (checked, s) =>
        process.stderr.write(`${checked} checked: ${s.moved} moved, ${s.skipped} skipped, ${s.failed} failed\n`),
    })
    process.stdout.write(
      `attachments on ${to}: ${summary.moved} moved, ${summary.verified} verified, ${summary.skipped} skipped (already there), ` +
        `${summary.failed} failed, ${summary.gone} erased meanwhile\n`,
    )
    return summary.failed > 0 ? 1 : 0
  } finally {
    for (const blobs of opened) await blobs.close()
    await store.close()
  }
}
