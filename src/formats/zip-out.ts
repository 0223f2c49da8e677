// A zip written as a stream from entries that arrive one at a time: the next entry is only asked for once the zip
// has started on the one before, and an entry's bytes flow as the reader of the zip takes them, so an export of any
// size holds about one entry in memory, whatever the speed of whoever downloads it.
import { Readable } from 'node:stream'
import yazl from 'yazl'

export interface ZipEntry {
  path: string
  /** Text or bytes, or a stream opened when the zip gets to the entry. */
  data: string | Buffer | (() => Promise<Readable>)
  /** Already compressed formats (pictures) are stored as they are. */
  compress?: boolean
}

/** The zip of `entries`, in their order; an entry that fails to open or read fails the stream. */
export function zipStream(entries: AsyncIterable<ZipEntry>): Readable {
  const zip = new yazl.ZipFile()
  const out = new Readable({ read() {} })
  const source = zip.outputStream as Readable
  // Wrapped, so that an error of an entry (emitted by the zip) reaches whoever reads it.
  source.on('data', (chunk: Buffer) => {
    if (!out.push(chunk)) source.pause()
  })
  source.on('end', () => out.push(null))
  out._read = () => source.resume()
  zip.on('error', (err: Error) => out.destroy(err))
  const mtime = new Date()
  // A reader that goes away (a closed download) ends the loop, so the entries' source is let go of.
  let gone: ((err: Error) => void) | undefined
  out.on('close', () => gone?.(new Error('the zip was closed before its end')))
  void (async () => {
    for await (const entry of entries) {
      if (out.destroyed) return
      await new Promise<void>((started, failed) => {
        gone = failed
        zip.addReadStreamLazy(entry.path, { mtime, compress: entry.compress ?? true }, (done) => {
          started()
          const { data } = entry
          if (typeof data !== 'function') return done(null, Readable.from([Buffer.from(data)]))
          data().then(
            (stream) => done(null, stream),
            (err: unknown) => {
              failed(err)
              done(err, Readable.from([]))
            },
          )
        })
      })
    }
    zip.end()
  })().catch((err: unknown) => out.destroy(err as Error))
  return out
}
