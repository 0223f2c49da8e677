// What an operator does to accounts from the command line (`notes-service users`, docs/accounts.md):
// list, show, create (also while REGISTRATION=closed: the operator is not a public client),
// reset a password, end every session, delete. Accounts are named by email, compared by their
// key as at login (emailKeyOf). The command line holds the inputs to the API's rules first
// (accounts-cli/users.ts, schemas/fields.ts).
import { randomBytes } from 'node:crypto'
import type { NoteUsage, SessionRecord, Store, UserRecord } from '../store/types.js'
import { emailKeyOf } from './accounts.js'
import { newId } from './ids.js'
import type { PasswordHasher } from './passwords.js'
import { type SessionService, revokeNow } from './sessions.js'

/** Bytes of randomness in a generated password: 144 bits, 24 base64url characters. */
const GENERATED_PASSWORD_BYTES = 18

export function generatePassword(): string {
  return randomBytes(GENERATED_PASSWORD_BYTES).toString('base64url')
}

/** A refusal worded for the operator: an unknown email, a taken one, input the API would refuse. */
export class AdminError extends Error {
  constructor(
    message: string,
    /** 'input': the command was given something it cannot use (exit code 2); 'state': 1. */
    readonly kind: 'input' | 'state',
  ) {
    super(message)
    this.name = 'AdminError'
  }
}

export interface AccountDetails {
  user: UserRecord
  usage: NoteUsage
  sessions: SessionRecord[]
}

export class AccountAdmin {
  constructor(
    private readonly store: Store,
    private readonly passwords: PasswordHasher,
    private readonly sessions: SessionService,
  ) {}

  /** Every account, a page at a time, by id. */
  async *list(pageSize = 500): AsyncGenerator<UserRecord> {
    let after: string | undefined
    for (;;) {
      const page = await this.store.usersAfter(after, pageSize)
      yield* page
      if (page.length < pageSize) return
      after = page[page.length - 1]?._id
    }
  }

  /** The account with this email; AdminError when there is none. */
  async find(email: string): Promise<UserRecord> {
    const user = email.trim() === '' ? undefined : await this.store.findUserByEmailKey(emailKeyOf(email))
    if (!user) throw new AdminError(`no account has the email "${email.trim()}"`, 'state')
    return user
  }

  async details(email: string): Promise<AccountDetails> {
    const user = await this.find(email)
    const [usage, sessions] = await Promise.all([this.store.noteUsage(user._id), this.sessions.live(user._id)])
    return { user, usage: usage ?? { notes: 0, bytes: 0 }, sessions }
  }

  /** A new account; REGISTRATION does not apply. */
  async create(emailInput: string, name: string, plainPassword: string): Promise<UserRecord> {
    const email = emailInput.trim()
    if (email === '') throw new AdminError('Email is required', 'input')
    const user: UserRecord = {
      _id: newId(),
      fullName: name,
      email,
      emailKey: emailKeyOf(email),
      passwordHash: await this.passwords.hash(plainPassword),
      createdOn: new Date().toISOString(),
    }
    if (!(await this.store.createUser(user))) throw new AdminError(`an account with the email "${email}" exists already`, 'state')
    return user
  }

  /** Sets the password and ends every session and every token without one, in one transaction. */
  async resetPassword(email: string, plainPassword: string): Promise<UserRecord> {
    const user = await this.find(email)
    const passwordHash = await this.passwords.hash(plainPassword)
    const changed = await this.store.updateUser(user._id, { passwordHash }, revokeNow({ endSessions: true }))
    if (!changed) throw new AdminError(`no account has the email "${email.trim()}"`, 'state')
    return changed
  }

  /** Ends every session and every token without one. */
  async revokeSessions(email: string): Promise<UserRecord> {
    const user = await this.find(email)
    if (!(await this.sessions.endAll(user._id))) throw new AdminError(`no account has the email "${email.trim()}"`, 'state')
    return user
  }

  /** Deletes the account, its notes and its sessions, in one transaction. */
  async delete(user: UserRecord): Promise<void> {
    if (!(await this.store.deleteUser(user._id))) throw new AdminError(`no account has the email "${user.email}"`, 'state')
  }
}
