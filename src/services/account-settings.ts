// What a signed-in user changes about their own account (docs/accounts.md): the name, the
// password, and the account itself. A password is checked like a login's: against the stored
// argon2id hash, with the same brute-force counters (per account and client address, per
// account, per address), so these endpoints cannot be used to guess around the login's limits.
import { ContractError } from '../errors.js'
import type { UserRecord, Store } from '../store/types.js'
import { INVALID_CREDENTIALS, publicUser } from './accounts.js'
import type { BruteForceGuard } from './brute-force.js'
import type { PasswordHasher } from './passwords.js'
import { type Authenticated, revokeNow } from './sessions.js'
import type { TokenUser } from './tokens.js'

export class AccountSettings {
  constructor(
    private readonly store: Store,
    private readonly guard: BruteForceGuard,
    private readonly passwords: PasswordHasher,
  ) {}

  /** PUT /edit-user: the account renamed, or undefined when it is gone. */
  async rename(userId: string, fullName: string): Promise<TokenUser | undefined> {
    const user = await this.store.updateUser(userId, { fullName })
    return user && publicUser(user)
  }

  /**
   * PUT /change-password: the new hash is stored and every other session ends, in one
   * transaction, and the "not before" time moves to now. The caller's session stays. A caller
   * whose token names no session cannot be told apart from the account's other such tokens, so
   * that token ends with them (it logs in again with the new password). false: the account is gone.
   */
  async changePassword(caller: Authenticated, currentPassword: string, newPassword: string, ip: string): Promise<boolean> {
    await this.checkPassword(caller.account, currentPassword, ip)
    const passwordHash = await this.passwords.hash(newPassword)
    const keep = caller.sessionId === undefined ? {} : { keep: caller.sessionId }
    return (await this.store.updateUser(caller.account._id, { passwordHash }, revokeNow({ endSessions: true, ...keep }))) !== undefined
  }

  /** DELETE /delete-account: the account, its notes and its sessions, in one transaction. false: already gone. */
  async deleteAccount(caller: Authenticated, password: string, ip: string): Promise<boolean> {
    await this.checkPassword(caller.account, password, ip)
    return this.store.deleteUser(caller.account._id)
  }

  /** 429 past the limits; 400 "Invalid Credentials", counted as a failed login, when wrong. */
  private async checkPassword(account: UserRecord, password: string, ip: string): Promise<void> {
    await this.guard.assertLoginAllowed(account.emailKey, ip)
    if (await this.passwords.verify(account.passwordHash, password)) return
    await this.guard.recordLoginFailure(account.emailKey, ip)
    throw new ContractError(400, INVALID_CREDENTIALS)
  }
}
