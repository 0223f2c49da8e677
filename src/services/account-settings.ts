// A write commits only while the caller's session is alive (Store.updateUser's actor): one a revocation overtook answers 401.
import { ContractError, badRequest } from '../errors.js'
import { PasswordReplacedError, SessionEndedError, type Store } from '../store/types.js'
import { INVALID_CREDENTIALS, publicUser } from './accounts.js'
import type { AttachmentService } from './attachments.js'
import type { BruteForceGuard } from './brute-force.js'
import {
  NEW_PASSWORD_MIN_LENGTH,
  type PasswordHasher,
  SAME_PASSWORD,
  passwordLength,
  passwordTooShort,
} from './passwords.js'
import { type Authenticated, type SessionService, actorOf, revokeNow } from './sessions.js'
import type { TokenUser } from './tokens.js'

export class AccountSettings {
  constructor(
    private readonly store: Store,
    private readonly guard: BruteForceGuard,
    private readonly passwords: PasswordHasher,
    private readonly sessions: SessionService,
    /** The account's files, erased with it. */
    private readonly files?: AttachmentService,
  ) {}

  async rename(caller: Authenticated, fullName: string): Promise<TokenUser | undefined> {
    const user = await this.store.updateUser(caller.account._id, { fullName }, undefined, actorOf(caller))
    return user && publicUser(user)
  }

  /** Every other session ends in the same transaction, and a token without one with the account's other such tokens. */
  async changePassword(caller: Authenticated, currentPassword: string, newPassword: string): Promise<boolean> {
    // Refused before anything is counted: these say nothing about the current password.
    if (passwordLength(newPassword) < NEW_PASSWORD_MIN_LENGTH)
      throw badRequest(passwordTooShort('New password', NEW_PASSWORD_MIN_LENGTH))
    if (newPassword === currentPassword) throw badRequest(SAME_PASSWORD)
    await this.checkPassword(caller, currentPassword)
    const passwordHash = await this.passwords.hash(newPassword)
    const revocation = revokeNow({ endSessions: true, keep: caller.sessionId })
    // Stored only over the hash the current password was verified against: of concurrent changes, one takes effect.
    const change = { passwordHash, replacing: caller.account.passwordHash }
    try {
      return (await this.store.updateUser(caller.account._id, change, revocation, actorOf(caller))) !== undefined
    } catch (err) {
      // The password it verified is no longer the current one: answered as a wrong one, but not counted, since it
      // was right when checked (docs/accounts.md, "Concurrent password changes").
      if (err instanceof PasswordReplacedError) throw new ContractError(400, INVALID_CREDENTIALS)
      throw err
    }
  }

  async deleteAccount(caller: Authenticated, password: string): Promise<boolean> {
    await this.checkPassword(caller, password)
    const erase = () => this.store.deleteUser(caller.account._id, actorOf(caller))
    return this.files ? this.files.eraseWithAccount(caller.account._id, erase) : erase()
  }

  /** 400 when wrong; 401 (SessionEndedError), unverified, once the session has used all its failures. */
  private async checkPassword(caller: Authenticated, password: string): Promise<void> {
    const attempt = await this.guard.beginSessionCheck(caller.sessionId ?? `account:${caller.account._id}`)
    if (!attempt) return this.endSession(caller)
    if (await this.passwords.verify(caller.account.passwordHash, password)) return attempt.giveBack()
    if (await attempt.keep()) await this.endSession(caller).catch(() => {})
    throw new ContractError(400, INVALID_CREDENTIALS)
  }

  private async endSession(caller: Authenticated): Promise<never> {
    await this.sessions.logout(caller).catch((err: unknown) => {
      if (!(err instanceof SessionEndedError)) throw err
    })
    throw new SessionEndedError()
  }
}
