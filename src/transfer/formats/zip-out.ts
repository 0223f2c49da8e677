// A zip written as a stream, one entry at a time: each entry is added only once the zip has read all of the one
// before, and yazl pipes an entry into its output, so a client that reads slowly holds the entry back, and with it
// the next one. An export of any size holds about one entry in memory, whatever the speed of its download.
import { Readable } from 'node:stream'
import yazl from 'yazl'

export interface EntryOptions {
  mtime: Date
  /** Already compressed formats (pictures) are stored as they are. */
  compress: boolean
  size?: number
}

export interface ZipOut {
  /** Adds `stream` as one entry; resolves once the zip has read all of it. */
  add(stream: Readable, path: string, options: EntryOptions): Promise<void>
  /** Adds text or bytes as one entry, compressed unless it is small. */
  addBytes(bytes: string | Buffer, path: string, mtime: Date): Promise<void>
}

/** The client went away: the writer stops quietly. */
class ZipStopped extends Error {}

/** The zip `write` fills, as a stream; an error of `write` or of an entry destroys it with that error. */
/**
 * yazl's own list of entries, which it scans from the start for the first unfinished one each time it moves on (so
 * an export of n entries costs n² steps), and whose finished entries keep the function that fed them, and through it
 * their bytes. Finished entries are set aside, without that function, and given back before the zip ends, when
 * yazl writes the central directory from the list.
 */
interface YazlEntries {
  entries: Array<{ state: number; doFileDataPump?: unknown }>
}
const FILE_DATA_DONE = 3

/**
 * Bytes below which an entry is stored as it is: a deflate stream costs each entry a compressor's memory, which for
 * many small notes grows the process (docs/performance.md, "Import and export of one account"), for a few hundred bytes saved.
 */
const COMPRESS_FROM = 2048

export function zipOut(write: (zip: ZipOut) => Promise<void>): Readable {
  const zip = new yazl.ZipFile()
  const output = zip.outputStream as Readable
  const list = zip as unknown as YazlEntries
  const finished: YazlEntries['entries'] = []
  const setAside = () => {
    let count = 0
    while (count < list.entries.length && list.entries[count]!.state === FILE_DATA_DONE) count++
    for (const entry of list.entries.splice(0, count)) {
      delete entry.doFileDataPump
      finished.push(entry)
    }
  }
  const add = (stream: Readable, path: string, options: EntryOptions) =>
    new Promise<void>((resolve, reject) => {
      const stopped = () => {
        stream.destroy()
        reject(new ZipStopped())
      }
      if (output.destroyed) return stopped()
      setAside()
      output.once('close', stopped)
      const done = (err?: Error) => {
        output.off('close', stopped)
        if (err) reject(err)
        else resolve()
      }
      stream.once('end', () => done())
      stream.once('error', (err: Error) => done(err))
      zip.addReadStream(stream, path, options)
    })
  const addBytes = (bytes: string | Buffer, path: string, mtime: Date) => {
    const buffer = Buffer.from(bytes)
    return add(Readable.from([buffer]), path, { mtime, compress: buffer.length >= COMPRESS_FROM, size: buffer.length })
  }
  void write({ add, addBytes })
    .then(() => {
      list.entries = finished.concat(list.entries)
      zip.end()
    })
    .catch((err: unknown) => {
      if (!(err instanceof ZipStopped)) output.destroy(err instanceof Error ? err : new Error(String(err)))
    })
  return output
}

/** A zip entry's time; a time the zip cannot hold (before 1980) is held as the zip's earliest. */
export function zipTime(iso: string): Date {
  const time = new Date(iso)
  const earliest = new Date(Date.UTC(1980, 0, 2))
  return Number.isFinite(time.getTime()) && time > earliest ? time : earliest
}
