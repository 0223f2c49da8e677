// openBlobs: the driver each choice names, usable as opened.
import assert from 'node:assert/strict'
import { it } from 'node:test'
import pg from 'pg'
import { openBlobs } from '../../src/blobs/open.js'
import { bytesOf, newBlobId, sourceOf } from '../support/blob-contract.js'
import { tempDir } from '../support/temp.js'

it('opens the driver each choice names', async () => {
  const dir = tempDir('notes-blobs-')
  const pool = new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none' }) // never connects here
  try {
    const disk = await openBlobs({ driver: 'disk', dir: dir.path })
    assert.equal(disk.driver, 'disk')
    const stored = await disk.write(newBlobId(), sourceOf(Buffer.from('bytes')), 10)
    assert.equal((await bytesOf((await disk.read(stored.key))!)).toString(), 'bytes')

    assert.equal((await openBlobs({ driver: 'postgresql', pool })).driver, 'postgresql')

    const s3 = await openBlobs({
      driver: 's3',
      endpoint: 'http://127.0.0.1:1',
      region: 'us-east-1',
      bucket: 'attachments',
      forcePathStyle: true,
    })
    assert.equal(s3.driver, 's3')
    await s3.close()
  } finally {
    await pool.end()
    dir.remove()
  }
})
