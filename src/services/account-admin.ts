// `notes-service users` (docs/accounts.md): accounts are named by email, compared by their key.
import { randomBytes } from 'node:crypto'
import type { Store, TransferStore, UserRecord } from '../store/types.js'
import { emailKeyOf, newUser } from './accounts.js'
import type { PasswordHasher } from './passwords.js'
import type { AttachmentService } from './attachments.js'
import { type SessionService, revokeNow } from './sessions.js'

/** 144 bits, as 24 base64url characters. */
export const generatePassword = (): string => randomBytes(18).toString('base64url')

/** kind 'input': exit code 2; 'state': 1. */
export class AdminError extends Error {
  override name = 'AdminError'
  constructor(
    message: string,
    readonly kind: 'input' | 'state',
  ) {
    super(message)
  }
}

export type AccountDetails = Awaited<ReturnType<AccountAdmin['details']>>

export class AccountAdmin {
  constructor(
    private readonly store: Store & Pick<TransferStore, 'usersAfter'>,
    private readonly passwords: PasswordHasher,
    private readonly sessions: SessionService,
    /** The account's files, erased with it. */
    private readonly files?: AttachmentService,
  ) {}

  async *list(pageSize = 500): AsyncGenerator<UserRecord> {
    let after: string | undefined
    for (;;) {
      const page = await this.store.usersAfter(after, pageSize)
      yield* page
      if (page.length < pageSize) return
      after = page[page.length - 1]?._id
    }
  }

  async find(email: string): Promise<UserRecord> {
    const user = email.trim() === '' ? undefined : await this.store.findUserByEmailKey(emailKeyOf(email))
    if (!user) throw noAccount(email.trim())
    return user
  }

  async details(email: string) {
    const user = await this.find(email)
    const [usage, sessions] = await Promise.all([this.store.noteUsage(user._id), this.sessions.live(user._id)])
    return { user, usage: usage ?? { notes: 0, bytes: 0 }, sessions }
  }

  /** REGISTRATION does not apply: the operator is not a public client. */
  async create(emailInput: string, name: string, plainPassword: string): Promise<UserRecord> {
    const email = emailInput.trim()
    if (email === '') throw new AdminError('Email is required', 'input')
    const user = newUser(name, email, await this.passwords.hash(plainPassword))
    if (!(await this.store.createUser(user)))
      throw new AdminError(`an account with the email "${email}" exists already`, 'state')
    return user
  }

  /** Also ends every session and every token without one, in the same transaction. */
  async resetPassword(email: string, plainPassword: string): Promise<UserRecord> {
    const user = await this.find(email)
    const passwordHash = await this.passwords.hash(plainPassword)
    const changed = await this.store.updateUser(user._id, { passwordHash }, revokeNow({ endSessions: true }))
    if (!changed) throw noAccount(email.trim())
    return changed
  }

  async revokeSessions(email: string): Promise<UserRecord> {
    const user = await this.find(email)
    if (!(await this.sessions.endAll(user._id))) throw noAccount(email.trim())
    return user
  }

  async delete(user: UserRecord): Promise<void> {
    const erase = () => this.store.deleteUser(user._id)
    if (!(await (this.files ? this.files.eraseWithAccount(user._id, erase) : erase()))) throw noAccount(user.email)
  }
}

const noAccount = (email: string) => new AdminError(`no account has the email "${email}"`, 'state')
