// The invariants checked once the traffic has stopped: streams ended in time, each account's notes are what the
// service acknowledged, each replica built from the feed equals the listing, and the store's rows and counters.
import { performance } from 'node:perf_hooks'
import type { Device, SoakContext } from './device.js'
import { type AccountModel, type NoteJson, sameFields, sameNote, show } from './model.js'
import type { StoredAccount } from './recount.js'
import { type Change, Replica } from './replica.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * The issue's bound is 1 s from a session's end to its stream's end, whatever the load. The soak sees both ends
 * from its own process, which shares two cores with the servers and the busy loops, so the bound it checks is the
 * issue's second plus what the machine adds: how late the servers were at that moment, measured as the time a
 * GET /healthz sent to each of them as the revocation answered took (it does nothing but go through the servers'
 * event loops and the soak's own), plus `slackMs` for the soak seeing the end of the stream (its own event loop's
 * delay: the report gives it). A stream that ends at the next heartbeat (15 s) fails it on any machine.
 */
export const streamEndBoundMs = (slackMs: number, latenessMs: number) => 1000 + slackMs + latenessMs

/** Every stream open when its session's revocation answered has ended within the bound; call after waiting it out. */
export function checkStreamEnds(ctx: SoakContext, slackMs: number): void {
  const now = performance.now()
  for (const r of ctx.streams) {
    const revoked = ctx.recorder.revokedAt.get(r.sid)
    if (!revoked || (r.endedAt !== undefined && r.endedAt <= revoked.at)) continue
    const boundMs = Math.round(streamEndBoundMs(slackMs, ctx.recorder.lateness.get(revoked.at) ?? 0))
    const from = Math.max(revoked.at, r.answeredAt)
    const lag = (r.endedAt ?? now) - from
    if (r.endedAt !== undefined) ctx.recorder.figures.streamEnds.push({ lag, by: revoked.by })
    if (lag > boundMs) {
      const how =
        r.endedAt === undefined ? `is still open ${lag.toFixed(0)} ms after` : `ended ${lag.toFixed(0)} ms after`
      ctx.recorder.violate(
        'every stream ends within 1 s of its session',
        `${r.account}: a stream ${how} ${revoked.by} answered (bound ${boundMs} ms)`,
      )
    }
  }
}

interface StoredState {
  listing: NoteJson[]
  trash: NoteJson[]
  fromStart: Replica
}

/** Reads the whole listing, the trash and the feed from the start through `d` (logged in again if need be). */
async function storedState(d: Device): Promise<StoredState | string> {
  let problem = ''
  for (let attempt = 0; attempt < 5; attempt++) {
    if (d.account.loginLost) return 'no acknowledged password logs in'
    if (d.needsLogin && !(await d.login(true))) return 'no acknowledged password logs in'
    const listing = await d.request('GET', '/get-all-notes')
    const trash = await d.request('GET', '/get-trash')
    const fromStart = new Replica()
    let complete = false
    for (let page = 0; page < 1000; page++) {
      const since = fromStart.cursor === undefined ? '' : `&since=${encodeURIComponent(fromStart.cursor)}`
      const a = await d.request('GET', `/get-changes?limit=100${since}`)
      if (a.status !== 200) {
        problem = `get-changes answered ${a.status || a.error}`
        break
      }
      fromStart.apply(a.json.changes as Change[], a.json.cursor as string)
      if (!a.json.more) {
        complete = true
        break
      }
    }
    if (listing.status === 200 && trash.status === 200 && complete)
      return { listing: listing.json.notes as NoteJson[], trash: trash.json.notes as NoteJson[], fromStart }
    if (listing.status !== 200 || trash.status !== 200)
      problem = `get-all-notes answered ${listing.status || listing.error}, get-trash ${trash.status || trash.error}`
    await sleep(200)
  }
  return problem
}

/** The notes as stored against the model of what was acknowledged. */
function checkNotes(ctx: SoakContext, account: AccountModel, listing: NoteJson[], trash: NoteJson[]): void {
  const lost = (detail: string): void =>
    void ctx.recorder.violate('every acknowledged write is stored', `${account.label}: ${detail}`)
  const listed = new Map(listing.map((n) => [n._id, n]))
  const trashed = new Map(trash.map((n) => [n._id, n]))
  for (const note of account.notes.values()) {
    const held = listed.get(note.id) ?? trashed.get(note.id)
    const where = listed.has(note.id) ? 'live' : trashed.has(note.id) ? 'trash' : 'absent'
    if (note.known) {
      if (where !== note.known.where) lost(`${note.id} was acknowledged ${note.known.where}, is ${where}`)
      else if (where === 'live' && !sameNote(held!, note.known.note))
        lost(
          `${note.id} holds ${show(held)} ${held!.updatedOn}, acknowledged ${show(note.known.note)} ${note.known.note.updatedOn}`,
        )
      else if (where === 'trash' && !sameFields(held!, note.known.note))
        lost(`${note.id} is trashed as ${show(held)}, acknowledged ${show(note.known.note)}`)
    } else if (!note.possible?.some((p) => p.where === where && (!p.fields || !held || sameFields(p.fields, held)))) {
      lost(`${note.id} is ${where} ${show(held)}, which no answered or unanswered write made`)
    }
  }
  for (const n of [...listing, ...trash]) {
    if (account.notes.has(n._id) || n._id === account.shared.id) continue
    const token = /^note (\S+) /.exec(n.title)?.[1]
    const unanswered = token === undefined ? undefined : account.uncertainAdds.get(token)
    if (!unanswered || unanswered.content !== n.content) {
      ctx.recorder.violate(
        'nothing answered with an error is stored',
        `${account.label}: ${n._id} ${show(n)} is stored, but no add-note that made it was acknowledged`,
      )
    }
  }
  const shared = account.shared
  if (!shared.id) return
  const held = listed.get(shared.id)
  const latest = account.latestShared()!
  if (!held) return lost(`the shared note is not listed`)
  if (shared.uncertain.some((f) => f.title === held.title && f.content === held.content)) return
  const same = shared.uncertainPins
    ? held.title === latest.title && held.content === latest.content
    : sameNote(held, latest)
  if (!same)
    lost(
      `the shared note holds ${show(held)} ${held.updatedOn}; the latest acknowledged write made ${show(latest)} ${latest.updatedOn}`,
    )
}

/** Every live account: its notes, and every replica of each of its devices against its listing. */
export async function checkAccounts(ctx: SoakContext, accounts: AccountModel[], devices: Device[]): Promise<void> {
  for (const account of accounts) {
    if (account.gone) continue
    const own = devices.filter((d) => d.account === account)
    const state = await storedState(own[0]!)
    if (typeof state === 'string') {
      const why = `${account.deletionRefused ? `delete-account answered ${account.deletionRefused}, yet ` : ''}the account cannot be read: ${state}`
      ctx.recorder.violate('every acknowledged write is stored', `${account.label}: ${why}`)
      continue
    }
    checkNotes(ctx, account, state.listing, state.trash)
    const compare = (what: string, replica: Replica) => {
      const diff = replica.differenceFrom(state.listing)
      if (diff)
        ctx.recorder.violate(
          'every replica built from the feed equals the listing',
          `${account.label}: ${what}: ${diff}`,
        )
    }
    compare('get-changes from the start', state.fromStart)
    for (const d of own) {
      if (d.done || account.loginLost) continue
      if (d.needsLogin && !(await d.login(true))) continue
      if (await d.pull()) compare(`device ${d.index}'s replica from get-changes`, d.pulled)
      // The stream delivers what was written last within a second; a device whose session ended opens a new one.
      const deadline = performance.now() + 10_000
      while (d.liveCaughtUp(state.listing) !== undefined && performance.now() < deadline && !d.done) {
        if (d.needsLogin) await d.login(true)
        await sleep(100)
      }
      compare(`device ${d.index}'s replica from streams`, d.live)
    }
  }
}

/** The store's own rows: a deleted account left none, a live one has counters equal to a recount. */
export function checkStored(ctx: SoakContext, accounts: AccountModel[], stored: Map<string, StoredAccount>): void {
  for (const account of accounts) {
    const s = stored.get(account.userId)
    if (!s) continue
    const left = Object.entries(s.rows).filter(([, n]) => n > 0)
    if (account.deletion === 'done' && left.length > 0) {
      ctx.recorder.violate(
        'every acknowledged write is stored',
        `${account.label}: delete-account answered 200, yet ${left.map(([t, n]) => `${n} ${t}`).join(', ')} remain`,
      )
    } else if (account.deletion === 'none' && !s.rows.users) {
      ctx.recorder.violate(
        'nothing answered with an error is stored',
        `${account.label}: the account is gone though ${account.deletionRefused ? `delete-account answered ${account.deletionRefused}` : 'nothing deleted it'}`,
      )
    } else if (account.deletion === 'uncertain' && !s.rows.users && left.length > 0) {
      ctx.recorder.violate(
        'every acknowledged write is stored',
        `${account.label}: a deletion left ${left.map(([t, n]) => `${n} ${t}`).join(', ')} of an account gone`,
      )
    }
    if (s.rows.users) {
      const c = s.counters
      const r = s.recount
      if (!c || c.notes !== r.notes || c.bytes !== r.bytes || c.kept !== r.kept) {
        ctx.recorder.violate(
          'usage counters equal a recount',
          `${account.label}: counters ${JSON.stringify(c)}, recount ${JSON.stringify(r)}`,
        )
      }
    }
  }
}
