// The blob storage a configuration names (docs/attachments.md, "Storage"): ATTACHMENTS_STORAGE when set; otherwise S3
// when a bucket is named, PostgreSQL with DATABASE_URL (every instance then sees every file with no other service),
// and DATA_DIR/attachments with SQLite. PostgreSQL's blobs get a small pool of their own, so that long uploads never
// take the connections requests need. Behind the configured driver stand the others the configuration can open
// (fallback.ts), so that bytes moved by `attachments migrate` are served before the restart with the new setting,
// and bytes not yet moved after it.
import { join } from 'node:path'
import type { Config } from '../config.js'
import { withFallbacks } from './fallback.js'
import { openBlobs } from './open.js'
import type { BlobDriverName, BlobStorage } from './types.js'

/** Connections the PostgreSQL blob driver holds at most: each upload and download in progress takes one. */
const BLOB_POOL_SIZE = 8

export function blobDriverOf(config: Config): BlobDriverName {
  const { storage, s3 } = config.attachments
  return storage ?? (s3.bucket ? 's3' : config.databaseUrl ? 'postgresql' : 'disk')
}

/**
 * The drivers this configuration can open, the configured one first: the disk always (DATA_DIR/attachments),
 * PostgreSQL with DATABASE_URL, S3 with a bucket.
 */
export function blobDriversOf(config: Config): BlobDriverName[] {
  const configured = blobDriverOf(config)
  const openable: BlobDriverName[] = ['disk']
  if (config.databaseUrl) openable.push('postgresql')
  if (config.attachments.s3.bucket) openable.push('s3')
  return [configured, ...openable.filter((driver) => driver !== configured)]
}

/** The configured blob storage, reading from the other drivers the configuration can open what it does not hold. */
export async function openConfiguredBlobs(config: Config): Promise<BlobStorage> {
  const [configured, ...others] = blobDriversOf(config)
  const primary = await openBlobDriver(config, configured!)
  return withFallbacks(
    primary,
    others.map((driver) => () => openBlobDriver(config, driver)),
  )
}

/** One driver, alone, with the configuration's settings for it. */
export async function openBlobDriver(config: Config, driver: BlobDriverName): Promise<BlobStorage> {
  if (driver === 'disk') return openBlobs({ driver: 'disk', dir: join(config.dataDir, 'attachments') })
  if (driver === 's3') {
    const { bucket, ...s3 } = config.attachments.s3
    if (!bucket) throw new Error('ATTACHMENTS_S3_BUCKET: must be set for the s3 attachment storage')
    return openBlobs({ driver: 's3', bucket, ...s3 })
  }
  if (!config.databaseUrl) throw new Error('ATTACHMENTS_STORAGE: postgresql needs DATABASE_URL')
  const { default: pg } = await import('pg')
  const pool = new pg.Pool({
    connectionString: config.databaseUrl,
    max: BLOB_POOL_SIZE,
    connectionTimeoutMillis: config.databaseConnectTimeoutMs,
    statement_timeout: config.databaseStatementTimeoutMs,
    keepAlive: true,
    application_name: 'notes-service attachments',
  })
  pool.on('error', () => {})
  const blobs = await openBlobs({ driver: 'postgresql', pool })
  return {
    driver: blobs.driver,
    write: (id, source, limit) => blobs.write(id, source, limit),
    read: (key, range) => blobs.read(key, range),
    remove: (key) => blobs.remove(key),
    list: () => blobs.list(),
    removeUnfinished: (before) => blobs.removeUnfinished(before),
    close: async () => {
      await blobs.close()
      await pool.end()
    },
  }
}
