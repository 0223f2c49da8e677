// Blobs as files under one directory (the service's DATA_DIR/attachments). A file's name is its SHA-256 and the
// attachment's id, `<sha[0..2]>/<sha256>.<id>`, and that relative path is the key: one record, one file (no sharing
// between records that hold the same bytes). A write goes to a file of its own in `tmp/`, is flushed to the disk, and
// only then renamed into place, so a key never names a partial file and a crash leaves at most a temporary file,
// which removeUnfinished erases.
import { randomBytes } from 'node:crypto'
import { type FileHandle, mkdir, open, readdir, rename, stat, unlink } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Readable } from 'node:stream'
import { ByteMeter, checkBlobId } from './metering.js'
import { BlobKeyError, type BlobStorage, type ListedBlob } from './types.js'

/** The only keys this driver makes: the folder is the hash's first two digits, the id is BLOB_ID's shape. */
const KEY = /^([0-9a-f]{2})\/\1[0-9a-f]{62}\.[A-Za-z0-9_-]{1,64}$/
const FOLDER = /^[0-9a-f]{2}$/
const TMP = 'tmp'
/** The bytes of each piece a read stream takes from a file. */
const READ_BYTES = 2 ** 20

const missing = (err: unknown) => (err as { code?: unknown }).code === 'ENOENT'

/** Names in `path`, sorted; none when it does not exist (nothing written yet). */
async function namesIn(path: string): Promise<string[]> {
  try {
    return (await readdir(path)).sort()
  } catch (err) {
    if (missing(err)) return []
    throw err
  }
}

/** Makes a directory's entries (a rename into it, a folder made in it) survive a crash. */
async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

export function diskBlobs(dir: string): BlobStorage {
  const tmpDir = join(dir, TMP)

  function pathOf(key: string): string {
    if (!KEY.test(key)) throw new BlobKeyError(key)
    return join(dir, key)
  }

  /** Streams `source` into a new temporary file, flushed to the disk; the meter has its size and hash. */
  async function writeTemporary(tmp: string, source: Readable, meter: ByteMeter): Promise<void> {
    // Opened here, before any byte is read, so the file exists before any failure and its removal cannot come first.
    const handle = await open(tmp, 'wx')
    try {
      // Each piece is read only once the one before is written: the source waits meanwhile.
      for await (const piece of source) {
        const bytes = meter.add(piece)
        for (let at = 0; at < bytes.length;) at += (await handle.write(bytes, at)).bytesWritten
      }
      await handle.sync()
    } finally {
      await handle.close()
    }
  }

  return {
    driver: 'disk',

    async write(id, source, limit) {
      let tmp: string | undefined
      let placed: string | undefined
      try {
        checkBlobId(id)
        const meter = new ByteMeter(limit)
        const madeFirst = await mkdir(tmpDir, { recursive: true })
        // The first write makes the directories: their entries must outlast a crash as the file's does.
        if (madeFirst !== undefined) await syncDirectory(dirname(madeFirst))
        tmp = join(tmpDir, `${id}.${randomBytes(8).toString('hex')}`)
        await writeTemporary(tmp, source, meter)
        const sha256 = meter.sha256()
        const folder = sha256.slice(0, 2)
        const key = `${folder}/${sha256}.${id}`
        const made = await mkdir(join(dir, folder), { recursive: true })
        placed = join(dir, key)
        await rename(tmp, placed)
        await syncDirectory(join(dir, folder))
        if (made !== undefined) await syncDirectory(dir)
        return { key, size: meter.size, sha256 }
      } catch (err) {
        source.destroy()
        // After the rename, a failed flush of the folder still fails the write: its file goes too.
        for (const path of [tmp, placed]) if (path !== undefined) await unlink(path).catch(() => {})
        throw err
      }
    },

    async read(key, range) {
      let handle: FileHandle
      try {
        handle = await open(pathOf(key), 'r')
      } catch (err) {
        if (missing(err)) return undefined
        throw err
      }
      // The stream closes the handle when it ends or is destroyed. Pieces of READ_BYTES, not the default 64 KiB: a
      // large file is then sent in a sixteenth of the reads and socket writes.
      return handle.createReadStream({
        highWaterMark: READ_BYTES,
        ...(range && { start: range.start, end: range.end }),
      })
    },

    async remove(key) {
      try {
        await unlink(pathOf(key))
      } catch (err) {
        if (!missing(err)) throw err
      }
    },

    async *list(): AsyncIterable<ListedBlob> {
      for (const folder of await namesIn(dir)) {
        if (!FOLDER.test(folder)) continue
        for (const name of await namesIn(join(dir, folder))) {
          const key = `${folder}/${name}`
          if (!KEY.test(key)) continue
          try {
            const info = await stat(join(dir, key))
            if (info.isFile()) yield { key, size: info.size, writtenOn: info.mtime }
          } catch (err) {
            if (!missing(err)) throw err // removed since the folder was read
          }
        }
      }
    },

    async removeUnfinished(before) {
      let removed = 0
      // A write in progress touches its file with every chunk, so only one stalled since `before` is taken.
      for (const name of await namesIn(tmpDir)) {
        const path = join(tmpDir, name)
        try {
          const info = await stat(path)
          if (!info.isFile() || info.mtime >= before) continue
          await unlink(path)
          removed += 1
        } catch (err) {
          if (!missing(err)) throw err
        }
      }
      return removed
    },

    async close() {},
  }
}
