// backup FILE with the disk blob driver: the files the copy's records name, copied from DATA_DIR/attachments into
// FILE.attachments/ in the same layout (restoring is putting that folder back as DATA_DIR/attachments), after the
// database and before FILE takes its name, so a FILE that exists has all its files. A file is written once and never
// changed, only erased with its record, so a file copied after the database holds the bytes its record in the copy
// says: each is checked against the record's SHA-256 and size anyway, and a difference fails the backup. A file
// erased in between (its record erased after the copy was taken) is counted; records whose bytes another driver
// keeps (S3) are counted too, as that storage is backed up on its own.
import { existsSync } from 'node:fs'
import { mkdir, rename, rm } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Readable } from 'node:stream'
import { diskBlobs } from '../blobs/disk.js'
import { BlobKeyError } from '../blobs/types.js'
import type { BackedUpAttachment } from '../store/sqlite/backup.js'
import { describeBytes, sameBytes, writeMeasured } from './hashed-copy.js'

export interface FilesBackup {
  /** Files copied and checked. */
  copied: number
  /** Records whose bytes another driver keeps. */
  elsewhere: number
  /** Records whose file was erased after the database was copied. */
  erased: number
}

/** Where a backup FILE's attachment files go. */
export const filesBesideBackup = (file: string) => `${file}.attachments`

/** Copies the attachments' files into `targetDir` (written as `targetDir.partial` and renamed once complete). */
export async function backupAttachmentFiles(
  dataDir: string,
  targetDir: string,
  attachments: AsyncIterable<BackedUpAttachment>,
): Promise<FilesBackup> {
  if (existsSync(targetDir)) throw new Error(`${targetDir} already exists; choose a new file name`)
  const files = diskBlobs(join(dataDir, 'attachments'))
  const partial = `${targetDir}.partial`
  await rm(partial, { recursive: true, force: true })
  const counts: FilesBackup = { copied: 0, elsewhere: 0, erased: 0 }
  try {
    for await (const record of attachments) {
      let bytes: Readable | undefined
      try {
        bytes = await files.read(record.blobKey)
      } catch (err) {
        if (!(err instanceof BlobKeyError)) throw err
        counts.elsewhere++
        continue
      }
      if (!bytes) {
        counts.erased++
        continue
      }
      const path = join(partial, record.blobKey)
      await mkdir(dirname(path), { recursive: true })
      const found = await writeMeasured(bytes, path)
      if (!sameBytes(found, record))
        throw new Error(
          `attachment ${record._id}: ${join(dataDir, 'attachments', record.blobKey)} holds ${describeBytes(found)}, the record says ${describeBytes(record)}`,
        )
      counts.copied++
    }
    if (counts.copied > 0) await rename(partial, targetDir)
    return counts
  } finally {
    await rm(partial, { recursive: true, force: true })
  }
}
