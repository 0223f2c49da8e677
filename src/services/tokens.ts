// HS256 JWTs, the algorithm pinned on verify so that `alg: none` and every other one are refused (RFC 8725 §3.1).
import { createSigner, createVerifier } from 'fast-jwt'
import { LRUCache } from 'lru-cache'
import type { UserRecord } from '../store/types.js'

export const TOKEN_LIFETIME_MS = 36_000 * 60 * 1000

/** How far ahead of this clock another instance's `iat` may be; fast-jwt's `maxAge` bounds only the past. */
export const MAX_CLOCK_SKEW_MS = 60_000

/** The public user: never a password or a hash. */
export type TokenUser = Pick<UserRecord, '_id' | 'fullName' | 'email' | 'createdOn'>

export interface VerifiedToken {
  user: TokenUser
  sessionId: string | undefined
  /** `iat`, in seconds; 0 when it has none. */
  issuedAt: number
}

export type TokenService = ReturnType<typeof createTokenService>

/** A verified token's claims and the span, in ms since the epoch, in which its verification holds. */
type Verified = { claims: VerifiedToken; notBefore: number; expires: number }

export function createTokenService(secret: string, options: { cacheSize?: number } = {}) {
  const sign = createSigner({ key: secret, algorithm: 'HS256', expiresIn: TOKEN_LIFETIME_MS })
  // Not fast-jwt's cache: it hashes the token on every call, which costs more than the rest of a hit.
  const check = createVerifier({ key: secret, algorithms: ['HS256'], requiredClaims: ['exp'] })
  // Keyed by the whole token, holding only tokens that passed the full check, so forged ones cannot
  // fill it. It says nothing about the session: the store lookup after it refuses an ended one.
  const verified = new LRUCache<string, Verified>({ max: options.cacheSize ?? 10_000 })
  return {
    issue: (user: TokenUser, sessionId?: string): string => {
      const claims = { user: { _id: user._id, fullName: user.fullName, email: user.email, createdOn: user.createdOn } }
      return sign(sessionId === undefined ? claims : { ...claims, sid: sessionId })
    },
    verify(token: string): VerifiedToken | undefined {
      const hit = verified.get(token)
      if (hit) {
        // A full verification's bounds: fast-jwt's clock tolerance is 0.
        const now = Date.now()
        if (now >= hit.notBefore && now <= hit.expires) return hit.claims
        verified.delete(token)
      }
      let payload: unknown
      try {
        payload = check(token)
      } catch {
        return undefined
      }
      const claims = payload as {
        user?: Partial<TokenUser>
        sid?: unknown
        exp?: unknown
        nbf?: unknown
        iat?: unknown
      } | null
      const user = claims?.user
      if (!claims || !user || typeof user._id !== 'string') return undefined
      if ('sid' in claims && typeof claims.sid !== 'string') return undefined
      // iat is optional (RFC 7519 §4.1.6).
      const issuedAt = 'iat' in claims ? claims.iat : 0
      if (typeof issuedAt !== 'number' || issuedAt * 1000 - MAX_CLOCK_SKEW_MS > Date.now()) return undefined
      const verifiedToken: VerifiedToken = {
        user: user as TokenUser,
        sessionId: claims.sid as string | undefined,
        issuedAt,
      }
      // A hit applies nbf and the iat bound too, so it agrees with a full check even if the clock is set back.
      if (typeof claims.exp === 'number') {
        const notBefore = Math.max(
          typeof claims.nbf === 'number' ? claims.nbf * 1000 : 0,
          issuedAt * 1000 - MAX_CLOCK_SKEW_MS,
        )
        verified.set(token, { claims: verifiedToken, notBefore, expires: claims.exp * 1000 })
      }
      return verifiedToken
    },
    get cachedTokens(): number {
      return verified.size
    },
  }
}
