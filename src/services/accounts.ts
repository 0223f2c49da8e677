// The account rules: registration, login and the current user (notes-service-interface.md §4,
// decisions.md). Emails are trimmed and compared case-insensitively; passwords are argon2id.
import { ContractError, badRequest } from '../errors.js'
import type { Store, UserRecord } from '../store/types.js'
import type { BruteForceGuard } from './brute-force.js'
import { newId } from './ids.js'
import type { PasswordHasher } from './passwords.js'
import type { TokenService, TokenUser } from './tokens.js'

export const USER_EXISTS = 'User already exists'
export const INVALID_CREDENTIALS = 'Invalid Credentials'

export interface Registration {
  fullName: string
  email: string
  password: string
}

export type RegistrationResult =
  | { created: true; user: TokenUser; accessToken: string }
  | { created: false }

/** The normalised email: the unique key for duplicates and login (decisions.md). */
export const emailKeyOf = (email: string): string => email.trim().toLowerCase()

/** The public user record: never a password or a hash (decisions.md, "Records"). */
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
  ) {}

  async register(input: Registration, client: string): Promise<RegistrationResult> {
    const email = requireEmail(input.email)
    const emailKey = emailKeyOf(email)
    await this.guard.assertRegistrationAllowed(client)
    // Cheap early answer for the common duplicate; the unique index settles races below.
    if (await this.store.findUserByEmailKey(emailKey)) {
      await this.guard.recordDuplicateRegistration(client)
      return { created: false }
    }
    const user: UserRecord = {
      _id: newId(),
      fullName: input.fullName,
      email,
      emailKey,
      passwordHash: await this.passwords.hash(input.password),
      createdOn: new Date().toISOString(),
    }
    if (!(await this.store.createUser(user))) {
      await this.guard.recordDuplicateRegistration(client)
      return { created: false }
    }
    const pub = publicUser(user)
    return { created: true, user: pub, accessToken: this.tokens.issue(pub) }
  }

  /** Unknown email and wrong password answer alike, after the same argon2 work. */
  async login(emailInput: string, password: string, client: string): Promise<{ email: string; accessToken: string }> {
    const email = requireEmail(emailInput)
    const emailKey = emailKeyOf(email)
    await this.guard.assertLoginAllowed(emailKey, client)
    const user = await this.store.findUserByEmailKey(emailKey)
    const ok = await this.passwords.verify(user?.passwordHash ?? (await this.passwords.dummyHash()), password)
    if (!user || !ok) {
      await this.guard.recordLoginFailure(emailKey, client)
      throw new ContractError(400, INVALID_CREDENTIALS)
    }
    return { email: user.email, accessToken: this.tokens.issue(publicUser(user)) }
  }

  /** undefined when the token's user no longer exists (answered with 401). */
  async currentUser(userId: string): Promise<TokenUser | undefined> {
    const user = await this.store.findUserById(userId)
    return user && publicUser(user)
  }
}
