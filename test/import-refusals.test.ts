// What POST /import-notes refuses, and how: a hostile archive (a path that climbs out, an absolute path, a symbolic
// link, a zip bomb), XML that declares entities, malformed files of each format (400 naming it), a file past
// MAX_IMPORT_MB (413); per-item skips for a title past its limit and a note too large; and a quota that ends the
// import cleanly, saying how far it got, with nothing half-written.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import yazl from 'yazl'
import { testConfig } from './support/harness.js'
import { type Harness, register, startHarness } from './support/harness.js'
import { heldNotes, importFile } from './support/import-http.js'
import { keepTakeout } from './support/import-fixtures/keep.js'
import { simplenoteExport } from './support/import-fixtures/simplenote.js'
import { storeKinds } from './support/stores.js'

async function zipBytes(entries: { path: string; bytes: Buffer | string; mode?: number }[]): Promise<Buffer> {
  const zip = new yazl.ZipFile()
  for (const { path, bytes, mode } of entries) zip.addBuffer(Buffer.from(bytes), path, mode ? { mode } : {})
  zip.end()
  const chunks: Buffer[] = []
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/** A zip whose entry is named `name`, which yazl refuses to write: written under a stand-in of the same length. */
async function zipNamed(name: string): Promise<Buffer> {
  const standIn = 'x'.repeat(name.length)
  const bytes = await zipBytes([{ path: standIn, bytes: '# hello' }])
  const renamed = Buffer.from(bytes.toString('latin1').split(standIn).join(name), 'latin1')
  assert.equal(renamed.length, bytes.length)
  return renamed
}

describe('POST /import-notes refuses', () => {
  let h: Harness
  before(async () => {
    h = await startHarness('http', { config: testConfig({ importMegabytes: 1 }) })
  })
  after(async () => h.close())

  const refused = async (filename: string, bytes: Buffer | string, status: number, message: RegExp) => {
    const a = await register(h.client)
    const reply = await importFile(h, a.token, { filename, bytes })
    assert.equal(reply.status, status, `${filename}: ${reply.error}`)
    assert.match(reply.error ?? '', message)
    assert.deepEqual(await heldNotes(h, a.token), [], 'nothing of a refused file is written')
  }

  it('a zip entry that climbs out, or has an absolute path', async () => {
    await refused('evil.zip', await zipNamed('../evil.md'), 400, /climbs out of the archive/)
    await refused('evil.zip', await zipNamed('notes/../../evil.md'), 400, /climbs out of the archive/)
    await refused('abs.zip', await zipNamed('/etc/passwd.md'), 400, /absolute path/)
  })

  it('a symbolic link in a zip', async () => {
    const zip = await zipBytes([
      { path: 'a.md', bytes: '# a' },
      { path: 'link.md', bytes: '/etc/passwd', mode: 0o120777 },
    ])
    await refused('links.zip', zip, 400, /symbolic link/)
  })

  it('a zip bomb, before unpacking it', async () => {
    const zip = await zipBytes([{ path: 'bomb.md', bytes: Buffer.alloc(8 * 2 ** 20, 0x61) }])
    assert.ok(zip.length < 2 ** 20)
    await refused('bomb.zip', zip, 400, /expands more than 200 times/)
  })

  it('XML that declares entities (billion laughs), never expanding them', async () => {
    const laughs =
      '<?xml version="1.0"?><!DOCTYPE en-export [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>' +
      '<en-export><note><title>&lol2;</title></note></en-export>'
    await refused('laughs.enex', laughs, 400, /^Evernote: .*declares entities/)
    const external =
      '<?xml version="1.0"?><!DOCTYPE en-export [<!ENTITY x SYSTEM "file:///etc/passwd">]><en-export><note><title>&x;</title></note></en-export>'
    await refused('external.enex', external, 400, /^Evernote: /)
  })

  it('a malformed file of each format, naming the format', async () => {
    const keep = [
      { path: 'Takeout/Keep/a.json', bytes: '{"title": "x", ' },
      { path: 'Takeout/Keep/a.html', bytes: '<html></html>' },
    ]
    await refused('keep.zip', await zipBytes(keep), 400, /^Google Keep: /)
    await refused('My Notes.enex', '<?xml version="1.0"?><en-export><note><title>cut', 400, /^Evernote: /)
    await refused('notes.json', '{"activeNotes": [{"id": "a", "content": "x"', 400, /^Simplenote: /)
    await refused(
      'backup.txt',
      JSON.stringify({
        version: '004',
        items: [{ uuid: 'u', content_type: 'Note', content: '004:abc', enc_item_key: 'k' }],
      }),
      400,
      /^Standard Notes: .*encrypted/,
    )
    const newer = await zipBytes([
      { path: 'manifest.json', bytes: JSON.stringify({ format: 'notes-service-markdown', version: 9 }) },
      { path: 'notes/a.md', bytes: '# a' },
    ])
    await refused('export.zip', newer, 400, /newer notes-service/)
    await refused('photo.png', Buffer.from('89504e470d0a1a0a', 'hex'), 400, /none of the formats notes-service imports/)
    await refused(
      'broken.zip',
      Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(40)]),
      400,
      /^The archive: not a zip file/,
    )
  })

  it('a file past MAX_IMPORT_MB with 413, and a body that is not a one-file form with 400', async () => {
    await refused(
      'big.md',
      Buffer.alloc(2 * 2 ** 20, 0x61),
      413,
      /^The file is too large: an import takes at most 1 MB$/,
    )
    const a = await register(h.client)
    const reply = await h.client.request('POST', '/import-notes', { token: a.token, body: { file: 'x' } })
    assert.equal(reply.status, 400)
  })

  it('skips, each with its reason, a title past its limit and a note too large, and imports the rest', async () => {
    const a = await register(h.client)
    const zip = await zipBytes([
      { path: 'ok.md', bytes: '# Fine\n\ntext' },
      { path: 'long title.md', bytes: `---\ntitle: "${'t'.repeat(1001)}"\n---\nbody` },
      { path: 'huge.md', bytes: `# Huge\n\n${'x'.repeat(100_001)}` },
    ])
    const reply = await importFile(h, a.token, { filename: 'vault.zip', bytes: zip })
    assert.equal(reply.status, 200, reply.error)
    assert.equal(reply.summary?.imported, 1)
    const reasons = Object.fromEntries(reply.summary.skipped.map((s) => [s.label, s.reason]))
    assert.match(reasons['long title.md'] ?? '', /title is 1001 characters long; a title holds at most 1000/)
    assert.match(reasons['huge.md'] ?? '', /a note holds at most 100000/)
    assert.deepEqual(
      (await heldNotes(h, a.token)).map((n) => n.note.title),
      ['Fine'],
    )
  })
})

for (const storeKind of storeKinds()) {
  describe(`an import that meets a quota (${storeKind})`, () => {
    let h: Harness
    before(async () => {
      h = await startHarness('http', { storeKind, config: testConfig({ noteQuota: { notes: 2, megabytes: 0 } }) })
    })
    after(async () => h.close())

    it('stops cleanly, says how far it got, leaves no file of an unwritten note, and finishes once there is room', async () => {
      const a = await register(h.client)
      const { notesJson } = simplenoteExport()
      const file = { filename: 'notes.json', bytes: Buffer.from(notesJson) }
      const first = await importFile(h, a.token, file)
      assert.equal(first.status, 200, first.error)
      assert.equal(first.summary?.imported, 2)
      assert.match(
        first.summary?.stopped ?? '',
        /^The account holds as many notes as it may\. Stopped before ".*", after \d+ item\(s\)/,
      )
      assert.equal((await heldNotes(h, a.token)).length, 2)

      const b = await register(h.client)
      const keep = keepTakeout()
      const zip = await zipBytes(keep.files.map((f) => ({ path: f.path, bytes: f.bytes })))
      const stopped = await importFile(h, b.token, { filename: 'takeout.zip', bytes: zip })
      assert.ok(stopped.summary?.stopped)
      const listed = await h.client.request('GET', '/get-attachments', { token: b.token })
      for (const file of (listed.json as { attachments: { name: string; notes: string[] }[] }).attachments)
        assert.ok(file.notes.length > 0, `${file.name} belongs to a note that was written`)

      const notes = (await heldNotes(h, a.token)).filter((n) => !n.trashed)
      const deleted = await h.client.request('DELETE', `/delete-note/${notes[0]!.note._id}`, { token: a.token })
      assert.equal(deleted.status, 200)
      const again = await importFile(h, a.token, file)
      assert.equal(again.summary?.alreadyPresent, 2, JSON.stringify(again.summary))
      assert.equal(again.summary?.imported, 1, 'the room made is filled, and the import stops again')
    })
  })
}
