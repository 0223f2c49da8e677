// The disk blob driver: the shared suite, and what only files have: keys that are paths, and temporary files.
import assert from 'node:assert/strict'
import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { diskBlobs } from '../../src/blobs/disk.js'
import { BlobKeyError, type BlobStorage } from '../../src/blobs/types.js'
import { blobContract, newBlobId, sha256Of, sourceOf } from '../support/blob-contract.js'
import { tempDir } from '../support/temp.js'

const keyOf = (id: string, sha256: string) => `${sha256.slice(0, 2)}/${sha256}.${id}`

blobContract({
  name: 'disk',
  unitBytes: 64 * 1024,
  keyOf,
  async open() {
    const dir = tempDir('notes-blobs-')
    const blobs = diskBlobs(join(dir.path, 'attachments'))
    return {
      blobs,
      async unfinished() {
        try {
          return readdirSync(join(dir.path, 'attachments', 'tmp')).length
        } catch {
          return 0
        }
      },
      async close() {
        await blobs.close()
        dir.remove()
      },
    }
  },
})

describe('disk blobs: files', () => {
  let dir: ReturnType<typeof tempDir>
  let blobs: BlobStorage
  before(() => {
    dir = tempDir('notes-blobs-')
    blobs = diskBlobs(dir.path)
  })
  after(() => dir.remove())

  it('names a file by the hash of its bytes and the id, under the hash’s first two digits', async () => {
    const bytes = Buffer.from('hello, attachments')
    const id = newBlobId()
    const stored = await blobs.write(id, sourceOf(bytes), 100)
    const sha = sha256Of(bytes)
    assert.equal(stored.key, `${sha.slice(0, 2)}/${sha}.${id}`)
    assert.deepEqual(readdirSync(join(dir.path, sha.slice(0, 2))), [`${sha}.${id}`])
  })

  it('refuses keys that would lead out of its directory or that it never makes', async () => {
    const bytes = Buffer.from('inside')
    const stored = await blobs.write(newBlobId(), sourceOf(bytes), 100)
    const [folder, name] = stored.key.split('/') as [string, string]
    const [sha, id] = name.split('.') as [string, string]
    writeFileSync(join(dir.path, 'outside'), 'not a blob')
    const refused = [
      '../outside',
      `${folder}/../outside`,
      `${folder}/../../outside`,
      `/${stored.key}`,
      `${folder}//${name}`,
      `${folder}/${name}/`,
      `${folder}\\${name}`,
      `${folder === '00' ? '01' : '00'}/${name}`, // the folder is not the hash's
      `${folder}/${sha}.${id}.extra`,
      `${folder}/${sha}`,
      `${folder}/${sha.toUpperCase()}.${id}`,
      `${folder}/${sha}.${id}\u0000`,
      `tmp/${name}`,
      'outside',
    ]
    for (const key of refused) {
      await assert.rejects(blobs.read(key), BlobKeyError, JSON.stringify(key))
      await assert.rejects(blobs.read(key, { start: 0, end: 0 }), BlobKeyError, JSON.stringify(key))
      await assert.rejects(blobs.remove(key), BlobKeyError, JSON.stringify(key))
    }
    assert.ok((await blobs.read(stored.key)) !== undefined, 'the blob itself is still there')
  })

  it('lists neither temporary files nor files it did not write', async () => {
    mkdirSync(join(dir.path, 'tmp'), { recursive: true })
    writeFileSync(join(dir.path, 'tmp', `${newBlobId()}.0123456789abcdef`), 'half a write')
    mkdirSync(join(dir.path, 'ab'), { recursive: true })
    writeFileSync(join(dir.path, 'ab', 'notes.txt'), 'an operator’s file')
    for await (const blob of blobs.list()) {
      assert.match(blob.key, /^([0-9a-f]{2})\/\1[0-9a-f]{62}\.[0-9a-f]{24}$/)
    }
  })

  it('removes temporary files last written before the time given, and no others', async () => {
    const tmp = join(dir.path, 'tmp')
    mkdirSync(tmp, { recursive: true })
    for (const name of readdirSync(tmp)) writeFileSync(join(tmp, name), '') // earlier tests' files: recent now
    const stale = join(tmp, `${newBlobId()}.1111111111111111`)
    const recent = join(tmp, `${newBlobId()}.2222222222222222`)
    writeFileSync(stale, 'left by a process killed mid-write')
    writeFileSync(recent, 'a write in progress')
    const longAgo = new Date(Date.now() - 2 * 3600_000)
    utimesSync(stale, longAgo, longAgo)
    const finished = await blobs.write(newBlobId(), sourceOf(Buffer.from('done')), 100)

    assert.equal(await blobs.removeUnfinished(new Date(Date.now() - 3600_000)), 1)
    const left = readdirSync(tmp)
    assert.ok(!left.includes(stale.split('/').at(-1) as string), 'the stale file is gone')
    assert.ok(left.includes(recent.split('/').at(-1) as string), 'the recent one stays')
    assert.ok(await blobs.read(finished.key), 'finished blobs stay')
  })
})
