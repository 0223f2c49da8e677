// Access tokens: HS256 JWTs through fast-jwt. The algorithm is pinned on verify, so `alg: none`
// and every other algorithm are refused (RFC 8725 §3.1); `exp` is required and checked.
// Payload: {user: {_id, fullName, email, createdOn}, iat, exp}: never a password or a hash.
import { createSigner, createVerifier } from 'fast-jwt'

/** 36000 minutes (25 days), as the specification says (§2, "Access token"). */
export const TOKEN_LIFETIME_MS = 36_000 * 60 * 1000

export interface TokenUser {
  _id: string
  fullName: string
  email: string
  createdOn: string
}

export interface TokenService {
  issue(user: TokenUser): string
  /** The token's user, or undefined for any token that fails verification. */
  verify(token: string): TokenUser | undefined
}

export function createTokenService(secret: string): TokenService {
  const sign = createSigner({ key: secret, algorithm: 'HS256', expiresIn: TOKEN_LIFETIME_MS })
  const check = createVerifier({
    key: secret,
    algorithms: ['HS256'],
    requiredClaims: ['exp'],
    // Verified tokens are cached (bounded, and never past their exp) so repeat requests skip
    // the HMAC: https://github.com/nearform/fast-jwt#caching
    cache: 10_000,
  })
  return {
    issue: (user) =>
      sign({ user: { _id: user._id, fullName: user.fullName, email: user.email, createdOn: user.createdOn } }),
    verify(token) {
      let payload: unknown
      try {
        payload = check(token)
      } catch {
        return undefined
      }
      const user = (payload as { user?: Partial<TokenUser> } | null)?.user
      if (!user || typeof user._id !== 'string') return undefined
      return user as TokenUser
    },
  }
}
