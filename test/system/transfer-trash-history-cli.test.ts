// export and import --trash and --history as a user runs them: child processes of the real CLI, on both stores.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { runCli } from '../support/cli.js'
import { startHarness } from '../support/harness.js'
import { type TrashHistoryData, makeTrashHistoryData } from '../support/trash-history-data.js'
import { type StoreWithSql, openStoreWithSql } from '../support/sql-stores.js'
import { SERVICE_LIMITS, storeKinds } from '../support/stores.js'
import { TempDir } from '../support/transfer.js'

const KINDS = ['users', 'notes', 'trash', 'history'] as const

for (const kind of storeKinds()) {
  describe(`notes-service export / import --trash --history (CLI, ${kind})`, () => {
    let dir: TempDir
    let source: StoreWithSql
    let data: TrashHistoryData
    before(async () => {
      dir = new TempDir()
      source = await openStoreWithSql(kind, SERVICE_LIMITS)
      const h = await startHarness('inject', { store: source.store })
      data = await makeTrashHistoryData(h.client)
      await h.close()
    })
    after(async () => {
      await source.close()
      dir.remove()
    })

    /** `export` of all four collections from `env` into files named `name-…`: their paths and their text. */
    const exportAll = async (name: string, env: Record<string, string>, extra: string[] = []) => {
      const files = Object.fromEntries(KINDS.map((k) => [k, dir.file(`${name}-${k}.json`)])) as Record<
        (typeof KINDS)[number],
        string
      >
      const run = await runCli(
        ['export', ...KINDS.flatMap((k) => [`--${k}`, files[k]]), '--with-password-hashes', ...extra],
        env,
      )
      assert.equal(run.code, 0, run.stderr)
      assert.equal(run.stdout, '', 'nothing goes to standard output when every collection has a file')
      return { files, run, texts: KINDS.map((k) => dir.read(`${name}-${k}.json`)) }
    }

    it('exports all four collections, imports them into an empty database, and exports the same files again', async () => {
      const first = await exportAll('first', source.env)
      assert.match(first.run.stderr, /^exported 2 user\(s\), 3 note\(s\), 3 trashed note\(s\) and 4 revision\(s\)\n$/)
      const target = await openStoreWithSql(kind)
      try {
        const args = ['import', ...KINDS.flatMap((k) => [`--${k}`, first.files[k]]), '--threads', '1']
        const run = await runCli(args, target.env)
        assert.equal(run.code, 0, run.stderr)
        assert.match(
          run.stdout,
          /^import finished in [\d.]+ s \(12 records, \d+\/s\)\nusers: 2 imported, 0 skipped \(already present\), 0 rejected\nnotes: 3 imported, 0 skipped \(already present\), 0 rejected\ntrash: 3 imported, 0 skipped \(already present\), 0 rejected\nhistory: 4 imported, 0 skipped \(already present\), 0 rejected\n$/,
        )
        assert.deepEqual((await exportAll('second', target.env)).texts, first.texts)

        const twice = await runCli(args, target.env)
        assert.equal(twice.code, 0, twice.stderr)
        assert.match(
          twice.stdout,
          /\ntrash: 0 imported, 3 skipped \(already present\), 0 rejected\nhistory: 0 imported, 4 skipped \(already present\), 0 rejected\n$/,
        )
        assert.deepEqual(
          (await exportAll('third', target.env, ['--jsonArray'])).texts.map((t) => JSON.parse(t) as unknown),
          first.texts.map((t) =>
            t
              .trim()
              .split('\n')
              .map((l) => JSON.parse(l) as unknown),
          ),
        )
      } finally {
        await target.close()
      }
    })

    it('--user keeps to one account; a bad record exits 3; no file at all is a usage error', async () => {
      const [ada] = data.accounts
      const trash = dir.file('ada-trash.json')
      const history = dir.file('ada-history.json')
      const run = await runCli(['export', '--user', ada!.email, '--trash', trash, '--history', history], source.env)
      assert.equal(run.code, 0, run.stderr)
      assert.match(run.stderr, /^exported 0 user\(s\), 0 note\(s\), 2 trashed note\(s\) and 3 revision\(s\)\n$/)
      for (const name of ['ada-trash.json', 'ada-history.json']) {
        const userIds = dir
          .read(name)
          .trim()
          .split('\n')
          .map((l) => (JSON.parse(l) as { userId: string }).userId)
        assert.deepEqual([...new Set(userIds)], [ada!.userId], name)
      }

      const bad = dir.file(
        'bad-trash.json',
        '{"_id":{"$oid":"0123456789abcdef01234567"},"title":"t","content":"c","userId":"0123456789abcdef01234567"}\n',
      )
      const rejected = await runCli(['import', '--trash', bad, '--threads', '1'], source.env)
      assert.equal(rejected.code, 3, rejected.stderr)
      assert.match(rejected.stderr, /bad-trash\.json:1: malformed trashed note: deletedOn is missing/)
      assert.match(
        rejected.stdout,
        /\nusers: 0 imported.*\nnotes: 0 imported.*\ntrash: 0 imported, 0 skipped \(already present\), 1 rejected \(1 malformed\)\n$/,
      )

      const usage = await runCli(['import', '--threads', '1'], source.env)
      assert.equal(usage.code, 2)
      assert.match(
        usage.stderr,
        /import needs at least one of --users FILE, --notes FILE, --trash FILE, --history FILE and --attachments DIR\nusage:/,
      )
    })
  })
}
