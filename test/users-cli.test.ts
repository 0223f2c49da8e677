// `notes-service users …` (src/accounts-cli/users.ts) on both stores, run in this process with
// its standard streams replaced, on a database that a running app shares: what each command
// prints and exits with, the password from standard input or generated, the confirmation of a
// delete, errors for an unknown email, and that an operator's revocation is seen by the app at
// its next request; and that what they print holds no control character, whatever a stored name,
// email or client holds. test/system/users-cli.test.ts runs the real process on a terminal.
import assert from 'node:assert/strict'
import { Readable, Writable } from 'node:stream'
import { after, before, describe, it } from 'node:test'
import argon2 from 'argon2'
import fc from 'fast-check'
import { type CliIo, runUsers } from '../src/accounts-cli/users.js'
import { emailKeyOf } from '../src/services/accounts.js'
import { newId } from '../src/services/ids.js'
import type { SessionRecord } from '../src/store/types.js'
import { escapeForTerminal } from '../src/unicode.js'
import { type Harness, addNote, register, startHarness, uniqueEmail } from './support/harness.js'
import { type StoreWithSql, openStoreWithSql } from './support/sql-stores.js'
import { makeUser } from './support/store-contract.js'
import { SERVICE_LIMITS, storeKinds } from './support/stores.js'

interface Run {
  code: number
  stdout: string
  stderr: string
}

/** Standard input as given: text from a pipe (none: empty), or a terminal on which `typed` is typed. */
function io(input: { piped?: string; typed?: string }): CliIo & { out: () => string; err: () => string } {
  let out = ''
  let err = ''
  const stdin = Object.assign(
    Readable.from(input.typed !== undefined ? [input.typed] : input.piped ? [Buffer.from(input.piped)] : []),
    {
      isTTY: input.typed !== undefined,
    },
  )
  return {
    stdin,
    stdout: new Writable({ write: (chunk: Buffer, _e, done) => ((out += chunk.toString()), done()) }),
    stderr: new Writable({ write: (chunk: Buffer, _e, done) => ((err += chunk.toString()), done()) }),
    out: () => out,
    err: () => err,
  }
}

const lines = (text: string) => text.split('\n').filter(Boolean)

/** The code points of `text` a terminal acts on: C0 but the newline (the commands write it between lines), DEL, C1, the bidi controls. */
const terminalControls = (text: string) =>
  [...text]
    .map((c) => c.codePointAt(0)!)
    .filter((u) => (u < 0x20 && u !== 0x0a) || (u >= 0x7f && u <= 0x9f) || BIDI_CONTROLS.includes(u))
const BIDI_CONTROLS = [0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]

/** The output as bytes holds no ESC, BEL or CR, and as text no other control character but the newline. */
function assertNoControl(output: string, what: string): void {
  const bytes = Buffer.from(output, 'utf8')
  for (const byte of [0x1b, 0x07, 0x0d])
    assert.ok(!bytes.includes(byte), `${what}: byte 0x${byte.toString(16)} in ${JSON.stringify(output)}`)
  assert.deepEqual(terminalControls(output), [], `${what}: ${JSON.stringify(output)}`)
}

/**
 * A name as an old database or an import may hold one: it retitles the window, rings, clears the
 * screen, then forges a line of `users list` (CR LF and the columns of another account), with C1
 * controls (CSI, NEL), bidi overrides, isolates and marks, DEL and NUL.
 */
const HOSTILE_NAME =
  'Ops\u001b]0;owned\u0007\u001b[2J\u001b[H\r\n6b0000000000000000000000  admin@corp.example  Admin  2020-01-01T00:00:00.000Z' +
  '\u009b31m\u0085\u202egnp.exe\u2066x\u2069\u200f\u061c\u007f\u0000'
const HOSTILE_CLIENT = 'Agent/1.0\u001b[2J\u009b\u202e\r\nforged line'

for (const kind of storeKinds()) {
  describe(`notes-service users (${kind})`, () => {
    let db: StoreWithSql
    let h: Harness
    before(async () => {
      db = await openStoreWithSql(kind, SERVICE_LIMITS)
      h = await startHarness('inject', { store: db.store })
    })
    after(async () => {
      await h.close()
      await db.close()
    })

    const users = async (
      args: string[],
      input: { piped?: string; typed?: string } = {},
      env: Record<string, string> = {},
    ): Promise<Run> => {
      const streams = io(input)
      const code = await runUsers(args, { ...db.env, ...env }, streams)
      return { code, stdout: streams.out(), stderr: streams.err() }
    }
    const hashOf = async (email: string) => (await db.store.findUserByEmailKey(emailKeyOf(email)))?.passwordHash ?? ''
    const loginStatus = async (email: string, password: string) =>
      (await h.client.request('POST', '/login', { body: { email, password } })).status
    const assertOneLine = (run: Run, code: number, pattern: RegExp) => {
      assert.equal(run.code, code, run.stderr)
      assert.equal(run.stdout, '')
      assert.equal(lines(run.stderr).length, 1, run.stderr)
      assert.match(run.stderr, pattern)
    }

    it('create: the password from standard input, also while REGISTRATION=closed; the account logs in', async () => {
      const email = uniqueEmail('cli')
      const run = await users(
        ['create', `  ${email} `, '--name', 'Cli Person'],
        { piped: 'typed secret\n' },
        { REGISTRATION: 'closed' },
      )
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
      assertOneLine(
        await users(['create', a.email.toUpperCase(), '--name', 'Again'], { piped: 'pw' }),
        1,
        /^notes-service: an account with the email ".+" exists already\n$/,
      )
      assertOneLine(
        await users(['create', uniqueEmail(), '--name', 'x'.repeat(201)], { piped: 'pw' }),
        2,
        /^notes-service: fullName must be at most 200 characters\n$/,
      )
      assertOneLine(
        await users(['create', `${'x'.repeat(250)}@example.com`, '--name', 'N'], { piped: 'pw' }),
        2,
        /^notes-service: email must be at most 254 characters\n$/,
      )
      assertOneLine(
        await users(['create', uniqueEmail(), '--name', 'N'], { piped: 'p'.repeat(1025) }),
        2,
        /^notes-service: password must be at most 1024 characters\n$/,
      )
      const noName = await users(['create', uniqueEmail()], { piped: 'pw' })
      assert.equal(noName.code, 2)
      assert.match(noName.stderr, /^notes-service: users create needs --name NAME\nusage:\n/)
    })

    it('list and show, as text and as JSON', async () => {
      const a = await register(h.client, 'Listed Person')
      await addNote(h.client, a.token, { title: 'one', content: 'ab' })
      await h.client.request('POST', '/login', {
        body: { email: a.email, password: a.password },
        headers: { 'user-agent': 'Second Device' },
      })
      const list = await users(['list'])
      assert.equal(list.code, 0)
      assert.ok(
        lines(list.stdout).includes(
          `${a.userId}  ${a.email}  Listed Person  ${(await db.store.findUserById(a.userId))?.createdOn}`,
        ),
        list.stdout,
      )
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
      const details = JSON.parse((await users(['show', a.email, '--json'])).stdout) as {
        user: { _id: string }
        notes: number
        noteBytes: number
        sessions: Array<{ client: string }>
      }
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
      const rows = await db.sql<{ tokens_not_before: string | null }>(
        'SELECT tokens_not_before FROM users WHERE id = ?',
        [a.userId],
      )
      assert.ok(rows[0]?.tokens_not_before, 'the "not before" time moved')
      const generated = await users(['reset-password', a.email])
      const password = /\npassword: (\S+)\n$/.exec(generated.stdout)?.[1]
      assert.ok(password, generated.stdout)
      assert.equal(await loginStatus(a.email, password), 200)
    })

    it("revoke-sessions: the app refuses the account's tokens at its next request; the password still logs in", async () => {
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
      assert.match(
        noTerminal.stderr,
        /^notes-service: users delete asks for confirmation on a terminal; without one, pass --yes\n/,
      )
      const declined = await users(['delete', a.email], { typed: 'someone.else@example.com\n' })
      assert.equal(declined.code, 1)
      assert.match(
        declined.stderr,
        /Type the email to confirm: notes-service: not deleted \(the email typed did not match\)\n$/,
      )
      const closed = await users(['delete', a.email], { typed: '' })
      assert.equal(closed.code, 1, 'no answer at all is no confirmation')
      assert.equal((await h.client.request('GET', '/get-user', { token: a.token })).status, 200, 'still there')
      const confirmed = await users(['delete', a.email], { typed: ` ${a.email.toUpperCase()}\n` })
      assert.equal(confirmed.code, 0, confirmed.stderr)
      assert.match(
        confirmed.stderr,
        new RegExp(
          `^Delete the account ${a.email.replace(/[.]/g, '\\.')} \\(Test User\\), its 1 note\\(s\\) and 1 session\\(s\\)\\?`,
        ),
      )
      assert.equal(confirmed.stdout, `deleted ${a.email}: the account, 1 note(s) and 1 session(s)\n`)
      assert.equal((await h.client.request('GET', '/get-user', { token: a.token })).status, 401)
      for (const table of ['notes', 'sessions', 'account_usage'])
        assert.deepEqual(await db.sql(`SELECT * FROM ${table} WHERE user_id = ?`, [a.userId]), [], table)

      const b = await register(h.client)
      const yes = await users(['delete', b.email, '--yes'])
      assert.equal(yes.code, 0, yes.stderr)
      assert.deepEqual(await db.sql('SELECT id FROM users WHERE id = ?', [b.userId]), [])
    })

    it('answers an unknown email with exit code 1 and one line, for every command that takes one', async () => {
      const nobody = uniqueEmail('nobody')
      for (const args of [
        ['show', nobody],
        ['reset-password', nobody],
        ['revoke-sessions', nobody],
        ['delete', nobody, '--yes'],
      ]) {
        assertOneLine(
          await users(args, { piped: 'pw' }),
          1,
          new RegExp(`^notes-service: no account has the email "${nobody.replace(/[.]/g, '\\.')}"\\n$`),
        )
      }
    })

    /** An account as an old database holds it, written to the store directly (no rule of the API on the way), with one session. */
    const storeHostile = async (fullName: string, email: string, client: string) => {
      const now = new Date().toISOString()
      const user = makeUser({ fullName, email, emailKey: emailKeyOf(email) })
      const session: SessionRecord = { _id: newId(), userId: user._id, createdOn: now, lastUsedOn: now, client }
      assert.ok(await db.store.createUser(user, session))
      return user
    }

    it('list and show print a hostile stored name, email and client escaped, as text and as JSON', async () => {
      const email = `ops\u001b[31m\u202e.${uniqueEmail('hostile')}`
      const user = await storeHostile(HOSTILE_NAME, email, HOSTILE_CLIENT)

      const list = await users(['list'])
      assert.equal(list.code, 0, list.stderr)
      assertNoControl(list.stdout, 'users list')
      const rows = lines(list.stdout)
      assert.equal(rows.length, Number(/^(\d+)/.exec(list.stderr)?.[1]), 'one line per account: the name forges none')
      assert.ok(
        rows.includes(
          `${user._id}  ${escapeForTerminal(email)}  ${escapeForTerminal(HOSTILE_NAME)}  ${user.createdOn}`,
        ),
        list.stdout,
      )
      assert.ok(
        rows.some((row) => row.includes('Ops\\u001b]0;owned\\u0007\\u001b[2J')),
        'the operator sees that something was there',
      )

      const listJson = await users(['list', '--json'])
      assertNoControl(listJson.stdout, 'users list --json')
      const listed = (JSON.parse(listJson.stdout) as Array<{ _id: string; fullName: string; email: string }>).find(
        (u) => u._id === user._id,
      )
      assert.deepEqual(
        [listed?.fullName, listed?.email],
        [HOSTILE_NAME, email],
        'the JSON is the stored data, only escaped',
      )

      const show = await users(['show', email])
      assert.equal(show.code, 0, show.stderr)
      assertNoControl(show.stdout, 'users show')
      const shown = lines(show.stdout)
      assert.equal(shown.length, 7, show.stdout)
      assert.equal(shown[1], `email:    ${escapeForTerminal(email)}`)
      assert.equal(shown[2], `name:     ${escapeForTerminal(HOSTILE_NAME)}`)
      assert.ok(shown[6]?.endsWith(`  ${escapeForTerminal(HOSTILE_CLIENT)}`), shown[6])

      const showJson = await users(['show', email, '--json'])
      assertNoControl(showJson.stdout, 'users show --json')
      const details = JSON.parse(showJson.stdout) as {
        user: { fullName: string; email: string }
        sessions: Array<{ client: string }>
      }
      assert.deepEqual(
        [details.user.fullName, details.user.email, details.sessions.map((s) => s.client)],
        [HOSTILE_NAME, email, [HOSTILE_CLIENT]],
      )

      // The other commands that name the account, on standard error and output.
      const declined = await users(['delete', email], { typed: 'not it\n' })
      assert.equal(declined.code, 1)
      assertNoControl(declined.stderr, 'users delete (the prompt)')
      assert.ok(declined.stderr.includes(`(${escapeForTerminal(HOSTILE_NAME)})`), declined.stderr)
      const revoked = await users(['revoke-sessions', email])
      assert.equal(revoked.stdout, `every session of ${escapeForTerminal(email)} has ended\n`)
      const unknown = await users(['show', `nobody\u001b[2J\u009b${uniqueEmail()}`])
      assert.equal(unknown.code, 1)
      assertNoControl(unknown.stderr, 'an unknown email')
      const deleted = await users(['delete', email, '--yes'])
      assert.equal(deleted.code, 0, deleted.stderr)
      assertNoControl(deleted.stdout, 'users delete')
    })

    it('show, for arbitrary stored names, emails and clients: no control character printed, the JSON the stored data', async () => {
      const controls = fc.constantFrom(
        '\u0000',
        '\u0007',
        '\u001b',
        '\u001b[2J',
        '\r',
        '\n',
        '\t',
        '\u007f',
        '\u0085',
        '\u009b',
        '\u202e',
        '\u2066',
        '\u200f',
        '\u061c',
      )
      const text = fc
        .array(fc.oneof(fc.string({ unit: 'binary', maxLength: 3 }), controls), { minLength: 1, maxLength: 8 })
        .map((parts) => parts.join(''))
      await fc.assert(
        fc.asyncProperty(text, text, text, async (fullName, local, client) => {
          const email = `${local}.${uniqueEmail('any')}`
          await storeHostile(fullName, email, client)
          const asText = await users(['show', email])
          assert.equal(asText.code, 0, asText.stderr)
          assertNoControl(asText.stdout, 'users show')
          assert.equal(lines(asText.stdout).length, 7, asText.stdout)
          const asJson = await users(['show', email, '--json'])
          assertNoControl(asJson.stdout, 'users show --json')
          const details = JSON.parse(asJson.stdout) as {
            user: { fullName: string; email: string }
            sessions: Array<{ client: string }>
          }
          assert.deepEqual(
            [details.user.fullName, details.user.email, details.sessions[0]?.client],
            [fullName, email, client],
          )
        }),
        { numRuns: kind === 'postgresql' ? 15 : 30 },
      )
    })

    it("create: refuses a name with a control character, in the API's words", async () => {
      for (const name of [
        'Ops\u001b[2J',
        'bell\u0007',
        'two\nlines',
        'c1\u0085',
        'del\u007f',
        'evil\u202eexe',
        'iso\u2066late',
        'mark\u200f',
      ]) {
        const email = uniqueEmail('named')
        assertOneLine(
          await users(['create', email, '--name', name], { piped: 'pw' }),
          2,
          /^notes-service: fullName must not contain control characters\n$/,
        )
        assert.equal(await db.store.findUserByEmailKey(emailKeyOf(email)), undefined)
      }
      const email = uniqueEmail('named')
      const run = await users(['create', email, '--name', 'Zoë 李 😀 محمد שלום'], { piped: 'pw' })
      assert.equal(run.code, 0, run.stderr)
      assert.equal((await db.store.findUserByEmailKey(emailKeyOf(email)))?.fullName, 'Zoë 李 😀 محمد שלום')
    })

    it('answers usage errors with exit code 2 and the usage', async () => {
      for (const args of [
        [],
        ['frobnicate'],
        ['show'],
        ['show', 'a@b', 'c@d'],
        ['list', '--bogus'],
        ['list', 'someone'],
      ]) {
        const run = await users(args)
        assert.equal(run.code, 2, args.join(' '))
        assert.match(run.stderr, /^notes-service: .+\nusage:\n {2}users {5}list/, args.join(' '))
      }
    })
  })
}
