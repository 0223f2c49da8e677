// The blob driver a configuration chooses. Each driver is loaded only when chosen: the S3 one brings the AWS SDK.
import type pg from 'pg'
import type { S3BlobOptions } from './s3.js'
import type { BlobStorage } from './types.js'

export type BlobChoice =
  { driver: 'disk'; dir: string } | { driver: 'postgresql'; pool: pg.Pool } | ({ driver: 's3' } & S3BlobOptions)

export async function openBlobs(choice: BlobChoice): Promise<BlobStorage> {
  switch (choice.driver) {
    case 'disk':
      return (await import('./disk.js')).diskBlobs(choice.dir)
    case 'postgresql':
      return (await import('./postgres.js')).postgresBlobs(choice.pool)
    case 's3':
      return (await import('./s3.js')).s3Blobs(choice)
  }
}
