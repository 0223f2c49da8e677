// The key each driver gives an attachment's bytes, known from the record alone: the disk driver's is the hash and the
// id (`<sha[0..2]>/<sha256>.<id>`), PostgreSQL's and S3's the id. `attachments migrate` asks a driver for a record's
// bytes before writing them there (a second write under one id is not promised to work). test/blobs/fallback.test.ts
// holds every driver's write to this.
import type { BlobDriverName } from './types.js'

export function blobKeyOf(driver: BlobDriverName, id: string, sha256: string): string {
  return driver === 'disk' ? `${sha256.slice(0, 2)}/${sha256}.${id}` : id
}
