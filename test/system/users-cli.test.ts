// `notes-service users` as an operator runs it, on both stores: the real process with a password
// piped in, and on a terminal (util-linux `script` gives it one) where create generates and
// prints a password and delete asks for the email; nothing secret anywhere but that one line,
// even at LOG_LEVEL=trace. test/users-cli.test.ts covers every command in process.
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { after, describe, it } from 'node:test'
import { uniqueEmail } from '../support/harness.js'
import { type StoreWithSql, openStoreWithSql } from '../support/sql-stores.js'
import { storeKinds } from '../support/stores.js'

const CLI = [process.execPath, '--import', 'tsx', 'src/cli.ts']
const hasScript = spawnSync('script', ['--version']).status === 0

interface Run {
  code: number | null
  output: string
  stderr: string
}

/**
 * Runs the CLI with `stdin` piped in (ended at once), or on a terminal where `typed` is typed at
 * once: the terminal keeps it until the command reads it.
 */
function run(
  args: string[],
  env: Record<string, string>,
  input: { stdin?: string; terminal?: { typed: string } },
): Promise<Run> {
  const { PATH, HOME, CI } = process.env
  const fullEnv = { PATH, HOME, CI, LOG_LEVEL: 'trace', ...env }
  const quoted = [...CLI, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ')
  // script -q: no banner; -e: its exit code is the command's; -c: the command; /dev/null: no typescript file.
  const child = input.terminal
    ? spawn('script', ['-qec', quoted, '/dev/null'], { env: fullEnv })
    : spawn(CLI[0]!, [...CLI.slice(1), ...args], { env: fullEnv })
  let output = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  // The terminal's input is left open: a closed one would end `script` before the command reads.
  if (input.terminal) child.stdin.write(input.terminal.typed)
  else child.stdin.end(input.stdin ?? '')
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output, stderr })))
}

for (const kind of storeKinds()) {
  describe(`notes-service users, the real process (${kind})`, { timeout: 120_000 }, () => {
    let db: StoreWithSql | undefined
    after(async () => db?.close())

    it('creates with a piped password, deletes only with --yes when there is no terminal, and logs no secret', async () => {
      db ??= await openStoreWithSql(kind)
      const email = uniqueEmail('piped')
      const created = await run(['users', 'create', email, '--name', 'Piped'], db.env, { stdin: 'a piped secret\n' })
      assert.equal(created.code, 0, created.stderr)
      assert.match(created.output, /^created \S+ \(id [0-9a-f]{24}\)\n$/)
      assert.equal(created.stderr, '')
      const refused = await run(['users', 'delete', email], db.env, {})
      assert.equal(refused.code, 2)
      assert.match(refused.stderr, /without one, pass --yes/)
      const deleted = await run(['users', 'delete', email, '--yes'], db.env, {})
      assert.equal(deleted.code, 0, deleted.stderr)
      for (const r of [created, refused, deleted]) assert.ok(!(r.output + r.stderr).includes('a piped secret'))
      assert.deepEqual(await db.sql('SELECT id FROM users WHERE email = ?', [email]), [])
    })

    it(
      'on a terminal: create generates and prints the password once, delete asks for the email',
      { skip: hasScript ? false : 'util-linux script is not installed' },
      async () => {
        db ??= await openStoreWithSql(kind)
        const email = uniqueEmail('terminal')
        const created = await run(['users', 'create', email, '--name', 'On A Terminal'], db.env, {
          terminal: { typed: '' },
        })
        assert.equal(created.code, 0, created.output)
        const password = /password: ([A-Za-z0-9_-]{24})\r?\n/.exec(created.output)?.[1]
        assert.ok(password, created.output)
        assert.equal(created.output.split(password).length, 2, 'printed once')
        const deleted = await run(['users', 'delete', email], db.env, {
          terminal: { typed: `${email.toUpperCase()}\n` },
        })
        assert.equal(deleted.code, 0, deleted.output)
        assert.match(deleted.output, /Type the email to confirm: /)
        assert.match(deleted.output, /deleted \S+: the account, 0 note\(s\) and 0 session\(s\)/)
        assert.deepEqual(await db.sql('SELECT id FROM users WHERE email = ?', [email]), [])
      },
    )
  })
}
