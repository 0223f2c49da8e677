// Registration and login (docs/contract.md), each of which opens a session that its token names.
import { ContractError, REGISTRATION_CLOSED, badRequest } from '../errors.js'
import type { Store, UserRecord } from '../store/types.js'
import type { BruteForceGuard } from './brute-force.js'
import { newId } from './ids.js'
import { type PasswordHasher, passwordLength, passwordTooShort } from './passwords.js'
import type { SessionService } from './sessions.js'
import type { TokenService, TokenUser } from './tokens.js'

export const USER_EXISTS = 'User already exists'
export const INVALID_CREDENTIALS = 'Invalid Credentials'

export type Registration = Pick<UserRecord, 'fullName' | 'email'> & { password: string }

export type Origin = { ip: string; userAgent: string | undefined }

type RegistrationResult = { created: true; user: TokenUser; accessToken: string } | { created: false }

// The unique key of an email (docs/compatibility.md, "The email key"), also store/email-rekey.ts's.
export const emailKeyOf = (email: string): string => email.trim().normalize('NFKC').toLowerCase()

export function publicUser(user: UserRecord): TokenUser {
  return { _id: user._id, fullName: user.fullName, email: user.email, createdOn: user.createdOn }
}

/** A new account's record; `email` is trimmed already. */
export function newUser(fullName: string, email: string, passwordHash: string): UserRecord {
  return {
    _id: newId(),
    fullName,
    email,
    emailKey: emailKeyOf(email),
    passwordHash,
    createdOn: new Date().toISOString(),
  }
}

function requireEmail(email: string): string {
  const trimmed = email.trim()
  if (!trimmed) throw badRequest('Email is required')
  return trimmed
}

export class AccountService {
  constructor(
    private readonly store: Store,
    private readonly tokens: TokenService,
    private readonly guard: BruteForceGuard,
    private readonly passwords: PasswordHasher,
    private readonly sessions: SessionService,
    private readonly registration: 'open' | 'closed',
    /** MIN_PASSWORD_LENGTH: 0 accepts any non-empty password, as the contract does. */
    private readonly minPasswordLength: number,
  ) {}

  /** Checked before the body is read too. */
  assertRegistrationOpen(): void {
    if (this.registration === 'closed') throw new ContractError(403, REGISTRATION_CLOSED)
  }

  async register(input: Registration, origin: Origin): Promise<RegistrationResult> {
    this.assertRegistrationOpen()
    const email = requireEmail(input.email)
    if (passwordLength(input.password) < this.minPasswordLength)
      throw badRequest(passwordTooShort('Password', this.minPasswordLength))
    // A possible duplicate is counted before the lookup, so parallel ones cannot pass the limit together.
    const duplicate = await this.guard.beginRegistration(origin.ip)
    if (await this.store.findUserByEmailKey(emailKeyOf(email))) {
      await duplicate.keep()
      return { created: false }
    }
    // Before the argon2 work, so a client past its limit costs no hash; the unique index settles races.
    const reserved = await this.guard.reserveRegistration(origin.ip).catch(async (err: unknown) => {
      await duplicate.giveBack().catch(() => {})
      throw err
    })
    let created = false
    try {
      const user = newUser(input.fullName, email, await this.passwords.hash(input.password))
      const session = this.sessions.newSession(user._id, origin.userAgent)
      created = await this.store.createUser(user, session)
      const pub = publicUser(user)
      if (created) return { created: true, user: pub, accessToken: this.tokens.issue(pub, session._id) }
    } finally {
      // A failed give-back leaves the attempt counted: the error that matters is the store's.
      await (created ? duplicate : reserved).giveBack().catch(() => {})
    }
    return { created: false }
  }

  /** Unknown email and wrong password answer alike, after the same argon2 work. */
  async login(emailInput: string, password: string, origin: Origin): Promise<{ email: string; accessToken: string }> {
    const email = requireEmail(emailInput)
    const emailKey = emailKeyOf(email)
    const attempt = await this.guard.beginLogin(emailKey, origin.ip)
    const user = await this.store.findUserByEmailKey(emailKey)
    const ok = await this.passwords.verify(user?.passwordHash ?? (await this.passwords.dummyHash()), password)
    // An account deleted while its password was checked has no session to open: as if unknown.
    const session = user && ok ? await this.sessions.open(user._id, origin.userAgent) : undefined
    if (!user || !session) {
      await attempt.keep()
      throw new ContractError(400, INVALID_CREDENTIALS)
    }
    // A failed give-back leaves one attempt counted; the login itself succeeded.
    await attempt.giveBack().catch(() => {})
    return { email: user.email, accessToken: this.tokens.issue(publicUser(user), session._id) }
  }
}
