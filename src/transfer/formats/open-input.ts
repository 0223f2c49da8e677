// What the import was given, as a readable source of one format: a folder, a zip (told by its first bytes, not its
// name) or one file; the format is the first whose probe knows the archive (readers.ts orders them). The caller
// closes the source, which frees the archive and the reader's scratch folder.
import { createReadStream } from 'node:fs'
import { mkdtemp, open, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { type Archive, ArchiveError, openFolder, openZip } from './archive.js'
import { type ArchiveFormat, IMPORT_FORMATS, type ImportSource, MalformedImportError } from './items.js'

/** A zip's first bytes: a local file header, or the end record of an empty zip. */
const ZIP_MAGIC = [Buffer.from('PK\x03\x04'), Buffer.from('PK\x05\x06')]

async function isZip(file: string): Promise<boolean> {
  const handle = await open(file, 'r')
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(4), 0, 4, 0)
    return bytesRead === 4 && ZIP_MAGIC.some((magic) => magic.equals(buffer))
  } finally {
    await handle.close()
  }
}

/** One file as an archive of one entry, named as the file is (`name` when given: an upload's own name). */
function singleFile(file: string, size: number, name: string): Archive {
  return {
    entries: [{ path: name, size, open: async () => createReadStream(file) }],
    close: async () => {},
  }
}

export async function openArchive(path: string, name = basename(path)): Promise<Archive> {
  const info = await stat(path)
  if (info.isDirectory()) return openFolder(path)
  if (await isZip(path)) return openZip(path)
  return singleFile(path, info.size, name)
}

const formatList = () =>
  Object.values(IMPORT_FORMATS)
    .filter((name, index, all) => all.indexOf(name) === index)
    .join(', ')

/**
 * The source reading `path` in the first of `formats` that knows it. MalformedImportError when none does or the
 * archive is refused (its message says why); `name`: what the person called the file, when `path` is a copy.
 */
export async function openImport(
  path: string,
  formats: readonly ArchiveFormat[],
  name?: string,
): Promise<ImportSource> {
  let archive: Archive
  try {
    archive = await openArchive(path, name)
  } catch (err) {
    if (err instanceof ArchiveError) throw new MalformedImportError('The archive', err.message)
    throw err
  }
  const scratchDir = await mkdtemp(join(tmpdir(), 'notes-import-'))
  const release = async () => {
    await archive.close()
    await rm(scratchDir, { recursive: true, force: true })
  }
  try {
    for (const format of formats) {
      if (!(await format.probe(archive))) continue
      const source = format.source(archive, { scratchDir })
      return {
        format: source.format,
        items: () => source.items(),
        close: async () => {
          await source.close()
          await release()
        },
      }
    }
  } catch (err) {
    await release()
    throw err instanceof ArchiveError ? new MalformedImportError('The archive', err.message) : err
  }
  await release()
  throw new MalformedImportError(
    'The file',
    `it is none of the formats notes-service imports (${formatList()}); a folder or a .zip must hold them as their apps export them`,
  )
}
