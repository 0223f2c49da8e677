// Parallel bursts of password attempts, as an attacker sends them: every request of a burst is
// under way at once, so a limit that read its count before checking the password and counted the
// failure afterwards would let every one of them through. What each answer says tells whether its
// password was verified: 400 "Invalid Credentials" (wrong) or 200 (right) were; 429 (throttled)
// and 401 (the session ended) were not. So the count of verified passwords is read from outside.
// The service must trust X-Forwarded-For (TRUST_PROXY) for the bursts spread over addresses.
import assert from 'node:assert/strict'
import { it } from 'node:test'
import type { BruteForceConfig } from '../../../src/config.js'
import { INVALID_CREDENTIALS } from '../../../src/services/accounts.js'
import { LOGIN_THROTTLED } from '../../../src/services/brute-force.js'
import { type Account, type Client, type Reply, register, uniqueEmail } from '../harness.js'

const WRONG = 'not the password at all'
const NEW_PASSWORD = 'a brand new password'

type Limits = Pick<BruteForceConfig, 'pairLimit' | 'emailLimit' | 'ipLimit' | 'sessionLimit'>

/** A fresh 10.x.y.z address for each call, so bursts of one run never share a client's counters. */
let addresses = 0
export function freshAddress(): string {
  addresses++
  return `10.${(process.pid >> 8) & 255}.${(addresses >> 8) & 255}.${addresses & 255}`
}

const isWrong = (r: Reply) =>
  r.status === 400 && (r.json as { message?: string } | undefined)?.message === INVALID_CREDENTIALS
const isThrottled = (r: Reply) =>
  r.status === 429 &&
  (r.json as { message?: string } | undefined)?.message === LOGIN_THROTTLED &&
  Number(r.headers['retry-after']) >= 1

/** The passwords the answers show verified; every answer must be one of the expected kinds. */
function verifiedIn(replies: Reply[], refusal: (r: Reply) => boolean, what: string): number {
  for (const r of replies)
    assert.ok(isWrong(r) || r.status === 200 || refusal(r), `${what}: unexpected ${r.status} ${r.text}`)
  return replies.filter((r) => isWrong(r) || r.status === 200).length
}

const login = (client: Client, email: string, password: string, ip: string) =>
  client.request('POST', '/login', { body: { email, password }, headers: { 'x-forwarded-for': ip } })

/** `count` attempts at once, the last with the right password. */
const burst = (count: number, attempt: (i: number, password: string) => Promise<Reply>, right: string) =>
  Promise.all(Array.from({ length: count }, (_, i) => attempt(i, i === count - 1 ? right : WRONG)))

/** 40 logins at once from one address, 39 wrong and the right one last: at most the pair's limit verified. */
export async function loginBurstFromOneAddress(client: Client, limits: Limits): Promise<void> {
  const a = await register(client)
  const ip = freshAddress()
  const replies = await burst(40, (_, password) => login(client, a.email, password, ip), a.password)
  const verified = verifiedIn(replies, isThrottled, 'login burst')
  assert.ok(verified <= limits.pairLimit, `${verified} passwords verified, the limit is ${limits.pairLimit}`)
  assert.ok(verified >= 1, 'the first attempts are verified')
}

/** 120 wrong logins at once for one account, each from its own address: at most the account's limit verified. */
export async function loginBurstOverAddresses(client: Client, limits: Limits): Promise<void> {
  const a = await register(client)
  const replies = await Promise.all(Array.from({ length: 120 }, () => login(client, a.email, WRONG, freshAddress())))
  const verified = verifiedIn(replies, isThrottled, 'login burst over addresses')
  assert.ok(
    verified <= limits.emailLimit,
    `${verified} passwords verified, the account's limit is ${limits.emailLimit}`,
  )
  // The owner is throttled for the window, as the account's limit says; another account is not.
  const b = await register(client)
  assert.equal((await login(client, b.email, b.password, freshAddress())).status, 200)
}

/** 120 wrong logins at once from one address, each for another email: at most the address's limit verified. */
export async function loginBurstOverAccounts(client: Client, limits: Limits): Promise<void> {
  const ip = freshAddress()
  const replies = await Promise.all(Array.from({ length: 120 }, () => login(client, uniqueEmail('burst'), WRONG, ip)))
  const verified = verifiedIn(replies, isThrottled, 'login burst over accounts')
  assert.ok(verified <= limits.ipLimit, `${verified} passwords verified, the address's limit is ${limits.ipLimit}`)
}

export type SessionEndpoint = 'change-password' | 'delete-account'

function sessionAttempt(
  client: Client,
  endpoint: SessionEndpoint,
  token: string,
  password: string,
  ip: string,
): Promise<Reply> {
  const headers = { 'x-forwarded-for': ip }
  if (endpoint === 'change-password')
    return client.request('PUT', '/change-password', {
      token,
      body: { currentPassword: password, newPassword: NEW_PASSWORD },
      headers,
    })
  return client.request('DELETE', '/delete-account', { token, body: { password }, headers })
}

/**
 * 40 attempts at once with one token, 39 wrong and the right one last, from one address or from
 * 40: at most the session's limit verified; the session ends once it has failed that often; and
 * the owner can still log in from the attacker's address (the failures never count toward login).
 */
export async function sessionBurst(
  client: Client,
  limits: Limits,
  endpoint: SessionEndpoint,
  spread: boolean,
): Promise<void> {
  const a: Account = await register(client)
  const ip = freshAddress()
  const replies = await burst(
    40,
    (_, password) => sessionAttempt(client, endpoint, a.token, password, spread ? freshAddress() : ip),
    a.password,
  )
  const what = `${endpoint} burst${spread ? ' over addresses' : ''}`
  const verified = verifiedIn(replies, (r) => r.status === 401 && r.text === 'Unauthorized', what)
  assert.ok(
    verified <= limits.sessionLimit,
    `${what}: ${verified} passwords verified, the session's limit is ${limits.sessionLimit}`,
  )
  const succeeded = replies.some((r) => r.status === 200)
  const wrong = replies.filter(isWrong).length
  if (wrong >= limits.sessionLimit || replies.some((r) => r.status === 401)) {
    assert.equal(
      (await client.request('GET', '/get-user', { token: a.token })).status,
      401,
      `${what}: the session ended`,
    )
  }
  if (endpoint === 'delete-account' && succeeded) return
  const password = endpoint === 'change-password' && succeeded ? NEW_PASSWORD : a.password
  const owner = await login(client, a.email, password, ip)
  assert.equal(owner.status, 200, `${what}: the owner logs in from the same address: ${owner.status} ${owner.text}`)
}

/** Every burst above as a test of the current suite, each against the client `client()` gives then. */
export function burstTests(client: () => Client, limits: Limits): void {
  it('login: 40 at once from one address, the right password last', () => loginBurstFromOneAddress(client(), limits))
  it('login: 120 wrong at once for one account from 120 addresses', () => loginBurstOverAddresses(client(), limits))
  it('login: 120 wrong at once from one address for 120 emails', () => loginBurstOverAccounts(client(), limits))
  for (const endpoint of ['change-password', 'delete-account'] as const) {
    it(`${endpoint}: 40 at once with one token from one address`, () => sessionBurst(client(), limits, endpoint, false))
    it(`${endpoint}: 40 at once with one token from 40 addresses`, () => sessionBurst(client(), limits, endpoint, true))
  }
}
