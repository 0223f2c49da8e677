// The account rules: registration and login (docs/contract.md, "POST /create-account" and
// "POST /login"), each of which opens a session that its token names (services/sessions.ts). Emails are compared by
// their key (emailKeyOf); passwords are argon2id.
import { ContractError, REGISTRATION_CLOSED, badRequest } from '../errors.js'
import type { Store, UserRecord } from '../store/types.js'
import type { BruteForceGuard } from './brute-force.js'
import { newId } from './ids.js'
import { type PasswordHasher, passwordLength, passwordTooShort } from './passwords.js'
import type { SessionService } from './sessions.js'
import type { TokenService, TokenUser } from './tokens.js'

export const USER_EXISTS = 'User already exists'
export const INVALID_CREDENTIALS = 'Invalid Credentials'

export interface Registration {
  fullName: string
  email: string
  password: string
}

/** Where a request comes from: the address the brute-force limits count, the session's client. */
export interface Origin {
  ip: string
  userAgent: string | undefined
}

export type RegistrationResult =
  | { created: true; user: TokenUser; accessToken: string }
  | { created: false }

/**
 * The email key, unique, for duplicates and login (docs/compatibility.md, "The email key"): the
 * trimmed email in NFKC, so that compatibility look-alikes (the Kelvin sign K, full-width
 * letters, the ligature ﬁ) are the same account, then lower-cased by Unicode's default mapping,
 * which depends on no locale (toLowerCase, never toLocaleLowerCase).
 * https://unicode.org/reports/tr15/#Norm_Forms
 * The stores' migrations recompute stored keys with this rule (store/email-rekey.ts).
 */
export const emailKeyOf = (email: string): string => email.trim().normalize('NFKC').toLowerCase()

/** The public user record: never a password or a hash (docs/contract.md, "The user"). */
export function publicUser(user: UserRecord): TokenUser {
  return { _id: user._id, fullName: user.fullName, email: user.email, createdOn: user.createdOn }
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
    /** REGISTRATION: `closed` refuses every registration (403); accounts come from an import. */
    private readonly registration: 'open' | 'closed' = 'open',
    /** MIN_PASSWORD_LENGTH: 0 accepts any non-empty password, as the contract does. */
    private readonly minPasswordLength = 0,
  ) {}

  /** Throws 403 while registration is closed; checked before the body is read. */
  assertRegistrationOpen(): void {
    if (this.registration === 'closed') throw new ContractError(403, REGISTRATION_CLOSED)
  }

  /** The account and its first session are stored together; the token names the session. */
  async register(input: Registration, origin: Origin): Promise<RegistrationResult> {
    const client = origin.ip
    this.assertRegistrationOpen()
    const email = requireEmail(input.email)
    if (passwordLength(input.password) < this.minPasswordLength) throw badRequest(passwordTooShort('Password', this.minPasswordLength))
    const emailKey = emailKeyOf(email)
    // Counted as a possible "User already exists" before the lookup, so parallel registrations
    // of taken emails cannot pass the limit together; given back when an account is made.
    const duplicate = await this.guard.beginRegistration(client)
    // Cheap early answer for the common duplicate; the unique index settles races below.
    if (await this.store.findUserByEmailKey(emailKey)) {
      await duplicate.keep()
      return { created: false }
    }
    // Counted before the argon2 work, so a client past its limit costs no hash; given back
    // below when no account is made (a duplicate that won a race, a store that refused).
    let reserved
    try {
      reserved = await this.guard.reserveRegistration(client)
    } catch (err) {
      await duplicate.giveBack().catch(() => {})
      throw err
    }
    let created = false
    try {
      const user: UserRecord = {
        _id: newId(),
        fullName: input.fullName,
        email,
        emailKey,
        passwordHash: await this.passwords.hash(input.password),
        createdOn: new Date().toISOString(),
      }
      const session = this.sessions.newSession(user._id, origin.userAgent)
      created = await this.store.createUser(user, session)
      if (created) {
        const pub = publicUser(user)
        return { created: true, user: pub, accessToken: this.tokens.issue(pub, session._id) }
      }
    } finally {
      // A failed give-back leaves the attempt counted: the error that matters is the store's.
      await (created ? duplicate : reserved).giveBack().catch(() => {})
    }
    return { created: false }
  }

  /**
   * Unknown email and wrong password answer alike, after the same argon2 work. Success opens a
   * session that the token names.
   */
  async login(emailInput: string, password: string, origin: Origin): Promise<{ email: string; accessToken: string }> {
    const email = requireEmail(emailInput)
    const emailKey = emailKeyOf(email)
    // Counted before the password is verified (brute-force.ts), given back when it was right.
    const attempt = await this.guard.beginLogin(emailKey, origin.ip)
    const user = await this.store.findUserByEmailKey(emailKey)
    const ok = await this.passwords.verify(user?.passwordHash ?? (await this.passwords.dummyHash()), password)
    // An account deleted while its password was checked has no session to open: as if unknown.
    const session = user && ok ? await this.sessions.open(user._id, origin.userAgent) : undefined
    if (!user || !session) {
      await attempt.keep()
      throw new ContractError(400, INVALID_CREDENTIALS)
    }
    // A give-back that fails leaves one attempt counted; the login itself succeeded.
    await attempt.giveBack().catch(() => {})
    return { email: user.email, accessToken: this.tokens.issue(publicUser(user), session._id) }
  }
}
