// A write commits only while the caller's session is alive (Store.updateUser's actor): one a revocation overtook answers 401.
import { ContractError, badRequest } from '../errors.js'
import { SessionEndedError, type Store } from '../store/types.js'
import { INVALID_CREDENTIALS, publicUser } from './accounts.js'
import type { BruteForceGuard } from './brute-force.js'
import { NEW_PASSWORD_MIN_LENGTH, type PasswordHasher, SAME_PASSWORD, passwordLength, passwordTooShort } from './passwords.js'
import { type Authenticated, type SessionService, actorOf, revokeNow } from './sessions.js'
import type { TokenUser } from './tokens.js'

export class AccountSettings {
  constructor(
    private readonly store: Store,
    private readonly guard: BruteForceGuard,
    private readonly passwords: PasswordHasher,
    private readonly sessions: SessionService,
  ) {}

  async rename(caller: Authenticated, fullName: string): Promise<TokenUser | undefined> {
    const user = await this.store.updateUser(caller.account._id, { fullName }, undefined, actorOf(caller))
    return user && publicUser(user)
  }

  /** Every other session ends in the same transaction, and a token without one with the account's other such tokens. */
  async changePassword(caller: Authenticated, currentPassword: string, newPassword: string): Promise<boolean> {
    // Refused before anything is counted: these say nothing about the current password.
    if (passwordLength(newPassword) < NEW_PASSWORD_MIN_LENGTH) throw badRequest(passwordTooShort('New password', NEW_PASSWORD_MIN_LENGTH))
    if (newPassword === currentPassword) throw badRequest(SAME_PASSWORD)
    await this.checkPassword(caller, currentPassword)
    const passwordHash = await this.passwords.hash(newPassword)
    const revocation = revokeNow({ endSessions: true, keep: caller.sessionId })
    return (await this.store.updateUser(caller.account._id, { passwordHash }, revocation, actorOf(caller))) !== undefined
  }

  async deleteAccount(caller: Authenticated, password: string): Promise<boolean> {
    await this.checkPassword(caller, password)
    return this.store.deleteUser(caller.account._id, actorOf(caller))
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
