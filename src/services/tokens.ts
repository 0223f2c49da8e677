// Access tokens: HS256 JWTs through fast-jwt. The algorithm is pinned on verify, so `alg: none`
// and every other algorithm are refused (RFC 8725 §3.1); `exp` is required and checked; an `iat`
// further ahead than MAX_CLOCK_SKEW_MS is refused.
// Payload: {user: {_id, fullName, email, createdOn}, sid, iat, exp}: never a password or a hash.
// `sid` names the token's session (docs/accounts.md); tokens issued before sessions existed have
// none. A valid signature is not enough to get in: the authenticate hook (plugins/auth.ts) also
// asks the store, on every request, whether the session is live and the account exists.
import { createSigner, createVerifier } from 'fast-jwt'
import { LRUCache } from 'lru-cache'

/** 36000 minutes (25 days): docs/contract.md, "The access token". */
export const TOKEN_LIFETIME_MS = 36_000 * 60 * 1000

/**
 * How far ahead of this server's clock a token's `iat` may be: tokens are issued by other
 * instances too, whose clocks differ a little. A token "issued" further in the future was not
 * issued by any instance with a sane clock (RFC 7519 §4.1.6), so it is refused. fast-jwt has no
 * option for this (its `maxAge` bounds an `iat` in the past only), so verify() checks it.
 */
export const MAX_CLOCK_SKEW_MS = 60_000

/** Most verified tokens kept; each entry is one token we issued (well under 2 KB) and its user. */
export const VERIFIED_TOKEN_CACHE_SIZE = 10_000

export interface TokenUser {
  _id: string
  fullName: string
  email: string
  createdOn: string
}

/** What a token that passed verification says. */
export interface VerifiedToken {
  user: TokenUser
  /** The session it names (claim `sid`); undefined for a token issued before sessions existed. */
  sessionId: string | undefined
  /** Its `iat`, in seconds since the epoch; 0 when it has none. */
  issuedAt: number
}

export interface TokenService {
  /** A token for the user's session; without a session id (tests, the bench) it names none. */
  issue(user: TokenUser, sessionId?: string): string
  /** What the token says, or undefined for any token that fails verification. */
  verify(token: string): VerifiedToken | undefined
}

/** A verified token's claims and the span, in ms since the epoch, in which verification holds. */
interface Verified {
  claims: VerifiedToken
  notBefore: number
  expires: number
}

export function createTokenService(
  secret: string,
  options: { cacheSize?: number } = {},
): TokenService & { readonly cachedTokens: number } {
  const sign = createSigner({ key: secret, algorithm: 'HS256', expiresIn: TOKEN_LIFETIME_MS })
  // No cache of fast-jwt's own: its key is a SHA-256 of the token, computed on every call
  // (https://github.com/nearform/fast-jwt#caching), which cost more than the rest of a cache hit.
  const check = createVerifier({ key: secret, algorithms: ['HS256'], requiredClaims: ['exp'] })
  // Verified tokens, keyed by the whole token string: a hit is exact, and only a token that
  // passed the full check (signature included) is ever stored, so forged tokens cannot fill it.
  // Bounded, least recently used out first (https://github.com/isaacs/node-lru-cache).
  // It holds what the signature proves and nothing about the session: a hit for a token whose
  // session has ended is still refused, by the store lookup every request makes after it.
  const verified = new LRUCache<string, Verified>({ max: options.cacheSize ?? VERIFIED_TOKEN_CACHE_SIZE })
  return {
    issue: (user, sessionId) => {
      const claims = { user: { _id: user._id, fullName: user.fullName, email: user.email, createdOn: user.createdOn } }
      return sign(sessionId === undefined ? claims : { ...claims, sid: sessionId })
    },
    verify(token) {
      const hit = verified.get(token)
      if (hit) {
        // The bounds of a full verification: valid while nbf*1000 <= now <= exp*1000 (fast-jwt's
        // clock tolerance is 0) and iat*1000 - MAX_CLOCK_SKEW_MS <= now.
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
      const claims = payload as { user?: Partial<TokenUser>; sid?: unknown; exp?: unknown; nbf?: unknown; iat?: unknown } | null
      const user = claims?.user
      if (!claims || !user || typeof user._id !== 'string') return undefined
      // Only this service signs tokens, and it writes sid as a string; anything else is refused.
      if ('sid' in claims && typeof claims.sid !== 'string') return undefined
      // iat is optional (RFC 7519 §4.1.6); when present it is a number at most the skew ahead.
      const issuedAt = 'iat' in claims ? claims.iat : 0
      if (typeof issuedAt !== 'number' || issuedAt * 1000 - MAX_CLOCK_SKEW_MS > Date.now()) return undefined
      const verifiedToken: VerifiedToken = { user: user as TokenUser, sessionId: claims.sid as string | undefined, issuedAt }
      // fast-jwt has checked that exp (required) and nbf (when present) are numbers. A cache hit
      // applies nbf and the iat bound as above, so it agrees even if the clock is set back.
      if (typeof claims.exp === 'number') {
        const notBefore = Math.max(typeof claims.nbf === 'number' ? claims.nbf * 1000 : 0, issuedAt * 1000 - MAX_CLOCK_SKEW_MS)
        verified.set(token, { claims: verifiedToken, notBefore, expires: claims.exp * 1000 })
      }
      return verifiedToken
    },
    get cachedTokens() {
      return verified.size
    },
  }
}
