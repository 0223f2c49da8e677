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
  /** Adds text or bytes as one compressed entry. */
  addBytes(bytes: string | Buffer, path: string, mtime: Date): Promise<void>
}

/** The client went away: the writer stops quietly. */
class ZipStopped extends Error {}

/** The zip `write` fills, as a stream; an error of `write` or of an entry destroys it with that error. */
export function zipOut(write: (zip: ZipOut) => Promise<void>): Readable {
  const zip = new yazl.ZipFile()
  const output = zip.outputStream as Readable
  const add = (stream: Readable, path: string, options: EntryOptions) =>
    new Promise<void>((resolve, reject) => {
      const stopped = () => {
        stream.destroy()
        reject(new ZipStopped())
      }
      if (output.destroyed) return stopped()
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
    return add(Readable.from([buffer]), path, { mtime, compress: true, size: buffer.length })
  }
  void write({ add, addBytes })
    .then(() => zip.end())
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
