// `notes-service import FILE --user EMAIL` and `export --format F --user EMAIL` as an operator runs them, on both
// stores: the summary printed, the exit codes, a second run that adds nothing, and an export the import reads back.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { ownMarkdownFormat } from '../src/transfer/formats/own-markdown.js'
import { openImport } from '../src/transfer/formats/open-input.js'
import { runCli } from './support/cli.js'
import { writeZip } from './support/import-fixtures/archive-files.js'
import { obsidianVault } from './support/import-fixtures/markdown.js'
import { type TestDatabase, createTestDatabase, serviceAvailable } from './support/services.js'
import { tempDir } from './support/temp.js'

const kinds = serviceAvailable('postgresql') ? (['sqlite', 'postgresql'] as const) : (['sqlite'] as const)

for (const kind of kinds) {
  describe(`import FILE and export --format on the command line (${kind})`, () => {
    const dir = tempDir('import-cli-')
    let db: TestDatabase | undefined
    let env: Record<string, string>
    const email = 'ada@example.com'
    before(async () => {
      db = kind === 'postgresql' ? await createTestDatabase() : undefined
      env = db
        ? { DATABASE_URL: db.url, DATA_DIR: dir.path, ACCESS_TOKEN_SECRET: 'a-test-secret-of-at-least-32-bytes!!' }
        : { DATA_DIR: join(dir.path, 'data') }
      const created = await runCli(['users', 'create', email, '--name', 'Ada'], env)
      assert.equal(created.code, 0, created.stderr)
    })
    after(async () => {
      await db?.drop()
      dir.remove()
    })

    it('imports a vault once, says what it did and skipped, and adds nothing the second time', async () => {
      const vault = obsidianVault()
      const zip = await writeZip(
        join(dir.path, 'vault.zip'),
        Object.entries(vault.files).map(([path, bytes]) => ({ path, bytes })),
      )
      const dry = await runCli(['import', zip, '--user', email, '--dry-run'], env)
      assert.match(dry.stdout, new RegExp(`^dry run of Markdown: .*${vault.notes.length} imported`))
      const first = await runCli(['import', zip, '--user', email], env)
      assert.equal(first.code, vault.skipped.length > 0 ? 3 : 0, first.stderr)
      assert.match(first.stdout, new RegExp(`^imported Markdown: .*${vault.notes.length} imported, 0 already present`))
      for (const skipped of vault.skipped) assert.ok(first.stdout.includes(`skipped ${skipped.label}: `), first.stdout)
      const again = await runCli(['import', zip, '--user', email], env)
      assert.match(again.stdout, new RegExp(`0 imported, ${vault.notes.length} already present`))

      const out = join(dir.path, 'export.zip')
      const exported = await runCli(['export', '--format', 'markdown', '--user', email, '--out', out], env)
      assert.equal(exported.code, 0, exported.stderr)
      const source = await openImport(out, [ownMarkdownFormat])
      const titles: string[] = []
      for await (const event of source.items()) if ('note' in event) titles.push(event.note.title)
      await source.close()
      assert.deepEqual(titles.sort(), vault.notes.map((note) => note.title).sort())
    })

    it('refuses an unknown file and an unknown account with exit code 1 or 2 and one clear line', async () => {
      const bad = await writeZip(join(dir.path, 'pictures.zip'), [{ path: 'a.bin', bytes: 'not notes' }])
      const unknown = await runCli(['import', bad, '--user', email], env)
      assert.equal(unknown.code, 1)
      assert.match(unknown.stderr, /none of the formats notes-service imports/)
      const nobody = await runCli(['import', bad, '--user', 'nobody@example.com'], env)
      assert.equal(nobody.code, 2)
      assert.match(nobody.stderr, /no user has the email "nobody@example.com"/)
    })
  })
}
