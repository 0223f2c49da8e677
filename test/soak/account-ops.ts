// What ends sessions, sent by a device among its note traffic (logout, delete-session, logout-everywhere,
// change-password, delete-account) or by the operator (`users revoke-sessions`). Each records when its answer
// arrived, which sessions it ended, and what it leaves uncertain when it gets no answer.
import { performance } from 'node:perf_hooks'
import { type SoakContext, type Device } from './device.js'
import { cliRevoke } from './deployments.js'
import { messageOf } from './http.js'
import type { AccountModel, TimelineEntry } from './model.js'

/** Puts a request that may end sessions on the account's timeline; `settle` adds its answer. */
function onTimeline(
  account: AccountModel,
  what: string,
  sid?: string,
): (a: { status: number; noAnswer?: string; answeredAt?: number }) => void {
  const entry: TimelineEntry = { what, sentAt: performance.now(), ...(sid !== undefined && { sid }) }
  account.timeline.push(entry)
  return (a) => {
    entry.answeredAt = a.answeredAt
    entry.what += ` ${a.status || a.noAnswer}`
  }
}

export async function logout(d: Device): Promise<void> {
  const sid = d.sid
  const settle = onTimeline(d.account, 'logout', sid)
  // The device's stream runs beside it: an open sent meanwhile may be refused before this answers.
  d.account.loggingOut.add(sid)
  const a = await d.request('POST', '/logout')
  settle(a)
  if (a.status === 200) d.account.ended(sid, a.answeredAt, 'logout')
  else if (a.status === 0) d.account.mayHaveEnded.add(sid)
  d.account.loggingOut.delete(sid)
  d.needsLogin = true
}

/** Runs an account-wide event, unless another holds the account; `run` gets no other event of the account beside it. */
async function asEvent(account: AccountModel, run: () => Promise<void>): Promise<boolean> {
  if (!account.takeEvent()) return false
  account.endsInFlight++
  try {
    await run()
  } finally {
    account.endsInFlight--
    account.releaseEvent()
  }
  return true
}

/** Ends the current session of another device of the account. */
export const deleteSession = (d: Device): Promise<boolean> =>
  asEvent(d.account, async () => {
    const others = [...d.account.sessions.entries()].filter(
      ([sid, s]) => s.device !== d.index && !d.ctx.recorder.revokedAt.has(sid),
    )
    if (others.length === 0) return
    const [sid] = others[others.length - 1 - d.random.below(Math.min(others.length, 3))]!
    const settle = onTimeline(d.account, 'delete-session', sid)
    const a = await d.request('DELETE', `/delete-session/${sid}`)
    settle(a)
    if (a.status === 200) d.account.ended(sid, a.answeredAt, 'delete-session')
    else if (a.status === 0) d.account.mayHaveEnded.add(sid)
  })

export const logoutEverywhere = (d: Device): Promise<boolean> =>
  asEvent(d.account, async () => {
    const settle = onTimeline(d.account, 'logout-everywhere')
    const a = await d.request('POST', '/logout-everywhere')
    settle(a)
    if (a.status === 200) d.account.endedAll(a.sentAt, a.answeredAt, 'logout-everywhere')
    else if (a.status === 0) d.account.endedMaybe()
    d.needsLogin = true
  })

/**
 * One password change, or a few sent at once from the same session with different new passwords (the race that
 * once answered 401 to all while one took effect). Each answered 200 may be the one in force; none answered with an
 * error may be (checked at the next login).
 */
export const changePassword = (d: Device): Promise<boolean> =>
  asEvent(d.account, async () => {
    const account = d.account
    account.passwordEpoch++
    const candidates = [...account.passwords]
    const current = candidates[0]!
    const count = d.random.chance(0.3) ? 2 + d.random.below(3) : 1
    const proposed = Array.from({ length: count }, () => `pw-${d.random.word(12)}`)
    const answers = await Promise.all(
      proposed.map((newPassword) => {
        const settle = onTimeline(account, `change-password (keeps ${d.sid.slice(-6)})`)
        return d
          .request('PUT', '/change-password', { body: { currentPassword: current, newPassword } })
          .then((a) => (settle(a), a))
      }),
    )
    const accepted: string[] = []
    const unknown: string[] = []
    answers.forEach((a, i) => {
      const password = proposed[i]!
      if (a.status === 200) {
        accepted.push(password)
        account.endedAll(a.sentAt, a.answeredAt, 'change-password', d.sid)
      } else if (a.status === 0 && a.noAnswer !== 'refused') {
        unknown.push(password)
        account.endedMaybe(d.sid)
      } else {
        account.refusedPasswords.set(password, `${a.status} ${messageOf(a.json)}`.trim())
      }
    })
    // Accepted: the current password was right, and one of the accepted is in force now. None accepted (the current
    // one sent may have been the wrong candidate): every candidate stays one.
    account.passwords = accepted.length > 0 ? [...accepted, ...unknown] : [...candidates, ...unknown]
    account.passwordEpoch++
  })

export const deleteAccount = (d: Device): Promise<boolean> =>
  asEvent(d.account, async () => {
    const account = d.account
    account.deletion = 'in flight'
    const settle = onTimeline(account, 'delete-account')
    const a = await d.request('DELETE', '/delete-account', { body: { password: account.passwords[0] } })
    settle(a)
    if (a.status === 200) {
      account.deletion = 'done'
      account.deletedAt = a.answeredAt
      account.endedAll(a.sentAt, a.answeredAt, 'delete-account')
      d.ctx.recorder.figures.deletedAccounts++
    } else if (a.status === 0 && a.noAnswer !== 'refused') {
      account.deletion = 'uncertain'
      account.endedMaybe()
    } else {
      account.deletion = 'none'
      account.deletionRefused = `${a.status} ${messageOf(a.json)}`
    }
  })

/**
 * The operator's `users revoke-sessions EMAIL`, while the account's devices go on with their notes. The command
 * takes seconds to start, so the account's devices hold their logins meanwhile: every session it ends is then one
 * that existed when it was started, and each must be refused, and its stream ended, from its answer on.
 */
export const revokeByCli = (ctx: SoakContext, account: AccountModel): Promise<boolean> =>
  asEvent(account, async () => {
    account.loginsBlocked = true
    while (account.loginsInFlight > 0) await new Promise((resolve) => setTimeout(resolve, 20))
    const settle = onTimeline(account, 'users revoke-sessions')
    const run = await cliRevoke(ctx.deployment.cliEnv, account.email).finally(() => (account.loginsBlocked = false))
    settle({
      status: run.answeredAt === undefined ? 0 : 200,
      noAnswer: `exit ${run.code}`,
      ...(run.answeredAt !== undefined && { answeredAt: run.answeredAt }),
    })
    if (run.answeredAt !== undefined) {
      ctx.recorder.requests++
      account.endedAll(run.sentAt, run.answeredAt, 'users revoke-sessions')
      ctx.recorder.figures.cliRevocations++
    } else {
      account.endedMaybe()
      ctx.recorder.record('CLI users revoke-sessions', {
        status: 0,
        json: {},
        headers: {},
        sentAt: run.sentAt,
        answeredAt: run.sentAt,
        noAnswer: 'cut',
        error: `exit ${run.code}: ${run.output.trim().slice(0, 200)}`,
      })
    }
  })
