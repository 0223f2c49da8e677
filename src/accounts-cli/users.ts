// `notes-service users …` (docs/accounts.md; rules in services/account-admin.ts). Exit codes: 0 done, 1 refused,
// 2 usage or input. Users' text may hold control characters, so all output is escaped (unicode.ts), JSON too.
import type { Readable, Writable } from 'node:stream'
import { createInterface } from 'node:readline/promises'
import { buffer } from 'node:stream/consumers'
import { parseArgs } from 'node:util'
import { Type } from '@sinclair/typebox'
import { type Env, parseConfig } from '../config.js'
import { firstProblem } from '../schemas/check.js'
import { email as emailField, fullName, password as passwordField } from '../schemas/fields.js'
import { openConfiguredBlobs } from '../blobs/configured.js'
import { AttachmentService } from '../services/attachments.js'
import { type AccountDetails, AccountAdmin, AdminError, generatePassword } from '../services/account-admin.js'
import { emailKeyOf, publicUser } from '../services/accounts.js'
import { defaultPasswordHasher } from '../services/passwords.js'
import { SessionService } from '../services/sessions.js'
import { openCommandStore } from '../store/open.js'
import { escapeForTerminal, escapeJsonForTerminal } from '../unicode.js'

// The operator's input is held to the routes' own field schemas.
const NewAccount = Type.Object(
  { fullName, email: emailField, password: passwordField },
  { required: ['fullName', 'email', 'password'] },
)
const NewPassword = Type.Object({ password: passwordField }, { required: ['password'] })

function refuseInput(problem: string | undefined): void {
  if (problem) throw new AdminError(problem, 'input')
}

export const USERS_USAGE = `  users     list [--json]              every account
            show EMAIL [--json]        one account, its notes and its sessions
            create EMAIL --name NAME   a new account, also while REGISTRATION=closed
            reset-password EMAIL       a new password; every session of the account ends
            revoke-sessions EMAIL      every session and token of the account ends
            delete EMAIL [--yes]       the account, its notes, files and sessions (asks first)
            create and reset-password read the password from standard input; on a terminal
            or with an empty input they generate one and print it once (docs/accounts.md)
`

export type CliIo = { stdin: Readable & { isTTY?: boolean }; stdout: Writable; stderr: Writable }

class UsageError extends Error {}

/** One line of output, newlines in `text` escaped too. */
const line = (out: Writable, text: string) => void out.write(`${escapeForTerminal(text)}\n`)

const json = (value: unknown) => escapeJsonForTerminal(JSON.stringify(value))

/** Standard input less one final line break, unless it is a terminal or empty: then a generated password. */
async function passwordFrom(io: CliIo): Promise<{ password: string; generated: boolean }> {
  if (!io.stdin.isTTY) {
    const given = (await buffer(io.stdin)).toString('utf8').replace(/\r?\n$/, '')
    if (given !== '') return { password: given, generated: false }
  }
  return { password: generatePassword(), generated: true }
}

/** Asks on the terminal for the account's email again; true when it matches. */
async function confirmed(io: CliIo, { user, usage: { notes }, sessions }: AccountDetails): Promise<boolean> {
  const prompt =
    `Delete the account ${escapeForTerminal(user.email)} (${escapeForTerminal(user.fullName)}), its ${notes} note(s) and ${sessions.length} session(s)? ` +
    'This cannot be undone.\nType the email to confirm: '
  const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: false })
  try {
    const answer = await Promise.race([
      rl.question(prompt),
      new Promise<string>((resolve) => rl.once('close', () => resolve(''))),
    ])
    return emailKeyOf(answer) === user.emailKey
  } finally {
    rl.close()
  }
}

function describe({ user, usage, sessions }: AccountDetails): string[] {
  return [
    `id:       ${user._id}`,
    `email:    ${user.email}`,
    `name:     ${user.fullName}`,
    `created:  ${user.createdOn}`,
    `notes:    ${usage.notes} (${usage.bytes} bytes)`,
    `sessions: ${sessions.length}`,
    ...sessions.map(
      (s) => `  ${s._id}  created ${s.createdOn}  last used ${s.lastUsedOn}  ${s.client || '(no client given)'}`,
    ),
  ]
}

const showJson = (details: AccountDetails) =>
  json({
    user: publicUser(details.user),
    notes: details.usage.notes,
    noteBytes: details.usage.bytes,
    sessions: details.sessions.map((s) => ({
      _id: s._id,
      createdOn: s.createdOn,
      lastUsedOn: s.lastUsedOn,
      client: s.client,
    })),
  })

/** Written as it is read: a large list is never held whole. */
async function list(admin: AccountAdmin, asJson: boolean, io: CliIo): Promise<number> {
  if (asJson) io.stdout.write('[')
  let n = 0
  for await (const user of admin.list()) {
    if (asJson) io.stdout.write(`${n > 0 ? ',' : ''}\n${json(publicUser(user))}`)
    else line(io.stdout, `${user._id}  ${user.email}  ${user.fullName}  ${user.createdOn}`)
    n++
  }
  if (asJson) io.stdout.write(n > 0 ? '\n]\n' : ']\n')
  else line(io.stderr, `${n} account(s)`)
  return 0
}

type Values = { json?: boolean; name?: string; yes?: boolean }
type OneAccountCommand = (admin: AccountAdmin, email: string, values: Values, io: CliIo) => Promise<number | void>

/** The commands on exactly one EMAIL; returning nothing is exit code 0. */
const ON_ONE_ACCOUNT: Record<string, OneAccountCommand> = {
  async show(admin, email, values, io) {
    const details = await admin.details(email)
    for (const row of values.json ? [showJson(details)] : describe(details)) line(io.stdout, row)
  },
  async create(admin, email, values, io) {
    if (values.name === undefined) throw new UsageError('users create needs --name NAME')
    const { password, generated } = await passwordFrom(io)
    refuseInput(firstProblem(NewAccount, { fullName: values.name, email, password }))
    const user = await admin.create(email, values.name, password)
    line(io.stdout, `created ${user.email} (id ${user._id})`)
    if (generated) line(io.stdout, `password: ${password}`)
  },
  async 'reset-password'(admin, email, _values, io) {
    await admin.find(email) // an unknown email is said before any password is read
    const { password, generated } = await passwordFrom(io)
    refuseInput(firstProblem(NewPassword, { password }))
    const user = await admin.resetPassword(email, password)
    line(io.stdout, `password of ${user.email} changed; every session of the account has ended`)
    if (generated) line(io.stdout, `password: ${password}`)
  },
  async 'revoke-sessions'(admin, email, _values, io) {
    const user = await admin.revokeSessions(email)
    line(io.stdout, `every session of ${user.email} has ended`)
  },
  async delete(admin, email, values, io) {
    const details = await admin.details(email)
    if (!values.yes) {
      if (!io.stdin.isTTY)
        throw new UsageError('users delete asks for confirmation on a terminal; without one, pass --yes')
      if (!(await confirmed(io, details))) {
        line(io.stderr, 'notes-service: not deleted (the email typed did not match)')
        return 1
      }
    }
    await admin.delete(details.user)
    line(
      io.stdout,
      `deleted ${details.user.email}: the account, ${details.usage.notes} note(s) and ${details.sessions.length} session(s)`,
    )
  },
}

async function run(admin: AccountAdmin, command: string, emails: string[], values: Values, io: CliIo): Promise<number> {
  if (command === 'list') {
    if (emails.length > 0) throw new UsageError('users list takes no EMAIL')
    return list(admin, values.json ?? false, io)
  }
  if (emails.length !== 1) throw new UsageError(`users ${command} needs exactly one EMAIL`)
  return (await ON_ONE_ACCOUNT[command]!(admin, emails[0]!, values, io)) ?? 0
}

/** `notes-service users …` on the store the environment selects; resolves to the exit code. */
export async function runUsers(args: string[], env: Env, io: CliIo = process): Promise<number> {
  try {
    const { positionals, values } = parseArgs({
      args,
      allowPositionals: true,
      options: { json: { type: 'boolean' }, name: { type: 'string' }, yes: { type: 'boolean', short: 'y' } },
    })
    const [command = '', ...emails] = positionals
    const known = command === 'list' || Object.hasOwn(ON_ONE_ACCOUNT, command)
    if (!known) throw new UsageError(command ? `unknown users command "${command}"` : 'users needs a command')
    const config = parseConfig(env)
    const store = await openCommandStore(config)
    const blobs = await openConfiguredBlobs(config)
    try {
      const files = new AttachmentService(store, blobs, config.attachments)
      return await run(
        new AccountAdmin(store, defaultPasswordHasher, new SessionService(store), files),
        command,
        emails,
        values,
        io,
      )
    } finally {
      await blobs.close()
      await store.close()
    }
  } catch (err) {
    const isParseError = err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')
    if (err instanceof UsageError || isParseError) {
      io.stderr.write(`notes-service: ${escapeForTerminal(err.message)}\nusage:\n${USERS_USAGE}`)
      return 2
    }
    if (!(err instanceof AdminError)) throw err
    line(io.stderr, `notes-service: ${err.message}`)
    return err.kind === 'input' ? 2 : 1
  }
}
