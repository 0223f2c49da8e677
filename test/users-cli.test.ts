// `notes-service users …` (src/accounts-cli/users.ts) on both stores, run in this process with
// its standard streams replaced, on a database that a running app shares: what each command
// prints and exits with, the password from standard input or generated, the confirmation of a
// delete, errors for an unknown email, and that an operator's revocation is seen by the app at
// its next request. test/system/users-cli.test.ts runs the real process on a terminal.
import assert from 'node:assert/strict'
import { Readable, Writable } from 'node:stream'
import { after, before, describe, it } from 'node:test'
import argon2 from 'argon2'
import { type CliIo, runUsers } from '../src/accounts-cli/users.js'
import { emailKeyOf } from '../src/services/accounts.js'
import { type Harness, addNote, register, startHarness, uniqueEmail } from './support/harness.js'
import { type StoreWithSql, openStoreWithSql } from './support/sql-stores.js'
import { storeKinds } from './support/stores.js'

interface Run {
  code: number
  stdout: string
  stderr: string
}

/** Standard input as given: text from a pipe (none: empty), or a terminal on which `typed` is typed. */
function io(input: { piped?: string; typed?: string }): CliIo & { out: () => string; err: () => string } {
  let out = ''
  let err = ''
  const stdin = Object.assign(Readable.from(input.typed !== undefined ? [input.typed] : input.piped ? [Buffer.from(input.piped)] : []), {
    isTTY: input.typed !== undefined,
  })
  return {
    stdin,
    stdout: new Writable({ write: (chunk: Buffer, _e, done) => ((out += chunk.toString()), done()) }),
    stderr: new Writable({ write: (chunk: Buffer, _e, done) => ((err += chunk.toString()), done()) }),
    out: () => out,
    err: () => err,
  }
}

const lines = (text: string) => text.split('\n').filter(Boolean)

for (const kind of storeKinds()) {
  describe(`notes-service users (${kind})`, () => {
    let db: StoreWithSql
    let h: Harness
    before(async () => {
      db = await openStoreWithSql(kind)
      h = await startHarness('inject', { store: db.store })
    })
    after(async () => {
      await h.close()
      await db.close()
    })

    const users = async (args: string[], input: { piped?: string; typed?: string } = {}, env: Record<string, string> = {}): Promise<Run> => {
      const streams = io(input)
      const code = await runUsers(args, { ...db.env, ...env }, streams)
      return { code, stdout: streams.out(), stderr: streams.err() }
    }
    const hashOf = async (email: string) => (await db.store.findUserByEmailKey(emailKeyOf(email)))?.passwordHash ?? ''
    const loginStatus = async (email: string, password: string) => (await h.client.request('POST', '/login', { body: { email, password } })).status
    const assertOneLine = (run: Run, code: number, pattern: RegExp) => {
      assert.equal(run.code, code, run.stderr)
      assert.equal(run.stdout, '')
      assert.equal(lines(run.stderr).length, 1, run.stderr)
      assert.match(run.stderr, pattern)
    }

    it('create: the password from standard input, also while REGISTRATION=closed; the account logs in', async () => {
      const email = uniqueEmail('cli')
      const run = await users(['create', `  ${email} `, '--name', 'Cli Person'], { piped: 'typed secret\n' }, { REGISTRATION: 'closed' })
      assert.equal(run.code, 0, run.stderr)
      assert.match(run.stdout, new RegExp(`^created ${email.replace(/[.]/g, '\\.')} \\(id [0-9a-f]{24}\\)\\n$`))
      assert.equal(run.stderr, '')
      assert.ok(await argon2.verify(await hashOf(email), 'typed secret'))
      assert.match(await hashOf(email), /^\$argon2id\$v=19\$m=19456,p=1,t=2\$/, "the deployment's cost")
      assert.equal(await loginStatus(email, 'typed secret'), 200)
    })

    it('create: a generated password, printed once, when standard input is a terminal or empty', async () => {
      for (const input of [{ typed: '' }, {}]) {
        const email = uniqueEmail('generated')
        const run = await users(['create', email, '--name', 'Generated'], input)
        assert.equal(run.code, 0, run.stderr)
        const [created, printed, ...rest] = lines(run.stdout)
        assert.match(created ?? '', /^created /)
        const password = /^password: ([A-Za-z0-9_-]{24})$/.exec(printed ?? '')?.[1]
        assert.ok(password, run.stdout)
        assert.deepEqual(rest, [])
        assert.equal(await loginStatus(email, password), 200)
      }
    })

    it('create: refuses a taken email (1) and input the API would refuse (2), each in one line', async () => {
      const a = await register(h.client)
      assertOneLine(await users(['create', a.email.toUpperCase(), '--name', 'Again'], { piped: 'pw' }), 1, /^notes-service: an account with the email ".+" exists already\n$/)
      assertOneLine(await users(['create', uniqueEmail(), '--name', 'x'.repeat(201)], { piped: 'pw' }), 2, /^notes-service: fullName must be at most 200 characters\n$/)
      assertOneLine(await users(['create', `${'x'.repeat(250)}@example.com`, '--name', 'N'], { piped: 'pw' }), 2, /^notes-service: email must be at most 254 characters\n$/)
      assertOneLine(await users(['create', uniqueEmail(), '--name', 'N'], { piped: 'p'.repeat(1025) }), 2, /^notes-service: password must be at most 1024 characters\n$/)
      const noName = await users(['create', uniqueEmail()], { piped: 'pw' })
      assert.equal(noName.code, 2)
      assert.match(noName.stderr, /^notes-service: users create needs --name NAME\nusage:\n/)
    })

    it('list and show, as text and as JSON', async () => {
      const a = await register(h.client, 'Listed Person')
      await addNote(h.client, a.token, { title: 'one', content: 'ab' })
      await h.client.request('POST', '/login', { body: { email: a.email, password: a.password }, headers: { 'user-agent': 'Second Device' } })
      const list = await users(['list'])
      assert.equal(list.code, 0)
      assert.ok(lines(list.stdout).includes(`${a.userId}  ${a.email}  Listed Person  ${(await db.store.findUserById(a.userId))?.createdOn}`), list.stdout)
      assert.match(list.stderr, /^\d+ account\(s\)\n$/)
      const json = JSON.parse((await users(['list', '--json'])).stdout) as Array<Record<string, unknown>>
      const listed = json.find((u) => u._id === a.userId)
      assert.deepEqual(Object.keys(listed ?? {}), ['_id', 'fullName', 'email', 'createdOn'])
      assert.equal(json.length, Number(/^(\d+)/.exec(list.stderr)?.[1]))

      const show = await users(['show', a.email.toUpperCase()])
      assert.equal(show.code, 0)
      assert.match(show.stdout, new RegExp(`^id: +${a.userId}\\n`))
      assert.match(show.stdout, /\nnotes: +1 \(5 bytes\)\nsessions: +2\n/)
      assert.match(show.stdout, /last used \S+ {2}Second Device\n/)
      const details = JSON.parse((await users(['show', a.email, '--json'])).stdout) as { user: { _id: string }; notes: number; noteBytes: number; sessions: Array<{ client: string }> }
      assert.equal(details.user._id, a.userId)
      assert.deepEqual([details.notes, details.noteBytes], [1, 5])
      assert.deepEqual(details.sessions.map((s) => s.client).sort(), ['Second Device', 'lightMyRequest'])
      assert.ok(!show.stdout.includes('$argon2') && !JSON.stringify(details).includes('$argon2'), 'no hash is shown')
    })

    it('reset-password: the new password works, the old one does not, every session and older token has ended', async () => {
      const a = await register(h.client)
      const run = await users(['reset-password', a.email], { piped: 'reset by operator\r\n' })
      assert.equal(run.code, 0, run.stderr)
      assert.equal(run.stdout, `password of ${a.email} changed; every session of the account has ended\n`)
      assert.equal((await h.client.request('GET', '/get-user', { token: a.token })).status, 401)
      assert.equal(await loginStatus(a.email, a.password), 400)
      assert.equal(await loginStatus(a.email, 'reset by operator'), 200)
      const rows = await db.sql<{ tokens_not_before: string | null }>('SELECT tokens_not_before FROM users WHERE id = ?', [a.userId])
      assert.ok(rows[0]?.tokens_not_before, 'the "not before" time moved')
      const generated = await users(['reset-password', a.email])
      const password = /\npassword: (\S+)\n$/.exec(generated.stdout)?.[1]
      assert.ok(password, generated.stdout)
      assert.equal(await loginStatus(a.email, password), 200)
    })

    it('revoke-sessions: the app refuses the account\'s tokens at its next request; the password still logs in', async () => {
      const a = await register(h.client)
      assert.equal((await h.client.request('GET', '/get-user', { token: a.token })).status, 200)
      const run = await users(['revoke-sessions', a.email])
      assert.equal(run.code, 0, run.stderr)
      assert.equal(run.stdout, `every session of ${a.email} has ended\n`)
      assert.equal((await h.client.request('GET', '/get-user', { token: a.token })).status, 401)
      assert.deepEqual(await db.sql('SELECT id FROM sessions WHERE user_id = ?', [a.userId]), [])
      assert.equal(await loginStatus(a.email, a.password), 200)
    })

    it('delete: asks on a terminal, refuses without one unless --yes, and leaves nothing of the account', async () => {
      const a = await register(h.client)
      await addNote(h.client, a.token, { title: 'n', content: 'c' })
      const noTerminal = await users(['delete', a.email])
      assert.equal(noTerminal.code, 2)
      assert.match(noTerminal.stderr, /^notes-service: users delete asks for confirmation on a terminal; without one, pass --yes\n/)
      const declined = await users(['delete', a.email], { typed: 'someone.else@example.com\n' })
      assert.equal(declined.code, 1)
      assert.match(declined.stderr, /Type the email to confirm: notes-service: not deleted \(the email typed did not match\)\n$/)
      const closed = await users(['delete', a.email], { typed: '' })
      assert.equal(closed.code, 1, 'no answer at all is no confirmation')
      assert.equal((await h.client.request('GET', '/get-user', { token: a.token })).status, 200, 'still there')
      const confirmed = await users(['delete', a.email], { typed: ` ${a.email.toUpperCase()}\n` })
      assert.equal(confirmed.code, 0, confirmed.stderr)
      assert.match(confirmed.stderr, new RegExp(`^Delete the account ${a.email.replace(/[.]/g, '\\.')} \\(Test User\\), its 1 note\\(s\\) and 1 session\\(s\\)\\?`))
      assert.equal(confirmed.stdout, `deleted ${a.email}: the account, 1 note(s) and 1 session(s)\n`)
      assert.equal((await h.client.request('GET', '/get-user', { token: a.token })).status, 401)
      for (const table of ['notes', 'sessions', 'account_usage']) assert.deepEqual(await db.sql(`SELECT * FROM ${table} WHERE user_id = ?`, [a.userId]), [], table)

      const b = await register(h.client)
      const yes = await users(['delete', b.email, '--yes'])
      assert.equal(yes.code, 0, yes.stderr)
      assert.deepEqual(await db.sql('SELECT id FROM users WHERE id = ?', [b.userId]), [])
    })

    it('answers an unknown email with exit code 1 and one line, for every command that takes one', async () => {
      const nobody = uniqueEmail('nobody')
      for (const args of [['show', nobody], ['reset-password', nobody], ['revoke-sessions', nobody], ['delete', nobody, '--yes']]) {
        assertOneLine(await users(args, { piped: 'pw' }), 1, new RegExp(`^notes-service: no account has the email "${nobody.replace(/[.]/g, '\\.')}"\\n$`))
      }
    })

    it('answers usage errors with exit code 2 and the usage', async () => {
      for (const args of [[], ['frobnicate'], ['show'], ['show', 'a@b', 'c@d'], ['list', '--bogus'], ['list', 'someone']]) {
        const run = await users(args)
        assert.equal(run.code, 2, args.join(' '))
        assert.match(run.stderr, /^notes-service: .+\nusage:\n {2}users {5}list/, args.join(' '))
      }
    })
  })
}
