// The import's view of a zip or a folder (src/transfer/formats/archive.ts): the limits a zip bomb meets (entries,
// bytes, ratio), names that climb out, and symbolic links in a folder, each refusing the whole archive before any
// entry is read.
import assert from 'node:assert/strict'
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { ARCHIVE_LIMITS, ArchiveError, openFolder, openZip } from '../src/transfer/formats/archive.js'
import { writeZip } from './support/import-fixtures/archive-files.js'
import { tempDir } from './support/temp.js'

describe('archives read for an import', () => {
  const dir = tempDir('import-archive-')
  after(() => dir.remove())
  const files = (count: number, size: number) =>
    Array.from({ length: count }, (_, i) => ({ path: `n/${i}.md`, bytes: Buffer.alloc(size, 0x61 + (i % 26)) }))

  it('refuses a zip of more entries, or more bytes, than its limits', async () => {
    const zip = await writeZip(join(dir.path, 'many.zip'), files(11, 10))
    const limits = { ...ARCHIVE_LIMITS, entries: 10 }
    await assert.rejects(
      openZip(zip, limits),
      (err: Error) => err instanceof ArchiveError && /more than 10 entries/.test(err.message),
    )
    const fits = await openZip(zip, { ...ARCHIVE_LIMITS, entries: 11 })
    assert.equal(fits.entries.length, 11)
    await fits.close()
    await assert.rejects(openZip(zip, { ...ARCHIVE_LIMITS, bytes: 100 }), /more than 100 bytes once unpacked/)
  })

  it('refuses entries, or a whole zip, that expand past the ratio, and takes ordinary compression', async () => {
    const text = Array.from({ length: 4000 }, (_, i) => `line ${i} of an ordinary note\n`).join('')
    const ordinary = await openZip(await writeZip(join(dir.path, 'text.zip'), [{ path: 'a.md', bytes: text }]))
    assert.equal(ordinary.entries.length, 1)
    await ordinary.close()
    const bomb = await writeZip(join(dir.path, 'bomb.zip'), [{ path: 'a.md', bytes: Buffer.alloc(4 * 2 ** 20) }])
    await assert.rejects(openZip(bomb), /expands more than 200 times/)
    const limits = { ...ARCHIVE_LIMITS, ratioFloor: 1000, ratio: 2 }
    await assert.rejects(
      openZip(await writeZip(join(dir.path, 'small.zip'), files(5, 1000)), limits),
      /its entries expand more than 2 times the zip.s size/,
    )
  })

  it('refuses a folder holding a symbolic link, anywhere in it, and reads one without', async () => {
    const root = join(dir.path, 'vault')
    mkdirSync(join(root, 'sub'), { recursive: true })
    writeFileSync(join(root, 'a.md'), '# a')
    writeFileSync(join(root, 'sub', 'b.md'), '# b')
    const clean = await openFolder(root)
    assert.deepEqual(
      clean.entries.map((e) => e.path),
      ['a.md', 'sub/b.md'],
    )
    symlinkSync('/etc/passwd', join(root, 'sub', 'passwd.md'))
    await assert.rejects(openFolder(root), /"sub\/passwd.md" is a symbolic link/)
  })

  it('refuses a file that is not a zip', async () => {
    const path = join(dir.path, 'not.zip')
    writeFileSync(path, 'PK\x03\x04 and then nothing a zip holds')
    await assert.rejects(openZip(path), /^ArchiveError: not a zip file|not a zip file/)
  })
})
