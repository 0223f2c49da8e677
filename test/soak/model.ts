// What the soak believes of one account: the notes as the service acknowledged them, the sessions and the ends it
// was told of, the password. Each device writes notes of its own, one request at a time, so their state is known
// exactly from the answers; a write that got no answer (a killed process, no answer in time) makes its note's
// state one of two, and the device leaves that note alone from then on. One note of the account is written by
// every device at once: what it holds at the end is the acknowledged write with the latest version.
import type { Recorder } from './http.js'

export interface NoteFields {
  title: string
  content: string
  tags: string[]
  isPinned: boolean
}

export interface NoteJson extends NoteFields {
  _id: string
  userId: string
  createdOn: string
  updatedOn: string
}

export type Where = 'live' | 'trash'

export interface OwnNote {
  id: string
  /** A word in the title that no other note of the account holds: what search looks for. */
  token: string
  /** The state the service acknowledged last, while it is certain. */
  known?: { where: Where; note: NoteJson; previousVersion?: string }
  /** Once a write got no answer: the states it may be in (fields only: the version is unknown). */
  possible?: Array<{ where: Where | 'absent'; fields?: NoteFields }>
}

export const fieldsOf = (n: NoteFields): NoteFields => ({
  title: n.title,
  content: n.content,
  tags: [...n.tags],
  isPinned: n.isPinned,
})
export const sameFields = (a: NoteFields, b: NoteFields): boolean =>
  a.title === b.title &&
  a.content === b.content &&
  a.isPinned === b.isPinned &&
  a.tags.length === b.tags.length &&
  a.tags.every((t, i) => t === b.tags[i])
export const sameNote = (a: NoteJson, b: NoteJson): boolean =>
  a._id === b._id && a.updatedOn === b.updatedOn && sameFields(a, b)
export const show = (n: NoteFields | undefined): string => (n ? JSON.stringify(fieldsOf(n)) : 'nothing')

interface SessionEntry {
  device: number
  loginSentAt: number
  loginAnsweredAt: number
}

/** One thing that happened to the account's sessions, for the report's account of an unexplained 401. */
export interface TimelineEntry {
  what: string
  sentAt: number
  answeredAt?: number
  /** A stream's: when the soak saw it end. */
  endedAt?: number
  /** The session it concerns; none: every session of the account. */
  sid?: string
}

/** An end of many sessions (sign-out everywhere, a password change, the CLI, account deletion) that answered. */
interface WideEnd {
  sentAt: number
  answeredAt: number
  except?: string
  by: string
}

export class AccountModel {
  userId = ''
  readonly notes = new Map<string, OwnNote>()
  /** Adds that got no answer, by their title's token: such a note may be stored. */
  readonly uncertainAdds = new Map<string, NoteFields>()
  readonly shared = { id: '', answers: [] as NoteJson[], uncertain: [] as NoteFields[], uncertainPins: false }
  readonly sessions = new Map<string, SessionEntry>()
  /** Passwords that may be in force, the one believed in force first. */
  passwords: string[]
  /** Passwords sent in a change-password answered with an error: never in force. */
  readonly refusedPasswords = new Map<string, string>()
  /** Sessions that an end without an answer, or one racing their login, may have ended. */
  readonly mayHaveEnded = new Set<string>()
  private readonly wideEnds: WideEnd[] = []
  /** Ends of sessions sent and not answered yet; a 401 meanwhile is explained. */
  endsInFlight = 0
  /** Sessions whose own logout is in flight: a 401 for one of them meanwhile is explained. */
  readonly loggingOut = new Set<string>()
  /** What happened to the account's sessions, with the soak's times: the report's account of an unexplained 401. */
  readonly timeline: TimelineEntry[] = []
  /** 401s nothing explained when they came: their violation's detail gets the timeline at the end. */
  readonly unexplained401s: Array<{ violation: { detail: string }; sid: string; at: number }> = []
  /** Logins wait while this is set, and how many are in flight: see revokeByCli. */
  loginsBlocked = false
  loginsInFlight = 0
  /** One account-wide event at a time (sign-out everywhere, password, deletion, delete-session, the CLI). */
  eventBusy = false
  deletion: 'none' | 'in flight' | 'done' | 'uncertain' = 'none'
  /** No password the soak knows of logs in any more (reported once): its devices stop. */
  loginLost = false
  deletedAt = Infinity
  /** What delete-account answered when it answered with an error (the account must stay). */
  deletionRefused: string | undefined
  stopped = false

  constructor(
    readonly label: string,
    readonly email: string,
    password: string,
    private readonly recorder: Recorder,
  ) {
    this.passwords = [password]
  }

  get gone(): boolean {
    return this.deletion === 'done' || this.deletion === 'uncertain'
  }

  /** A login answered with a session. */
  loggedIn(sid: string, device: number, sentAt: number, answeredAt: number): void {
    this.sessions.set(sid, { device, loginSentAt: sentAt, loginAnsweredAt: answeredAt })
    this.timeline.push({ what: `login (device ${device})`, sentAt, answeredAt, sid })
    if (answeredAt > this.deletedAt) this.recorder.revoked(sid, this.deletedAt, 'delete-account')
    for (const end of this.wideEnds) if (sentAt < end.answeredAt && answeredAt > end.sentAt) this.mayHaveEnded.add(sid)
  }

  /** One session ended by an answered request. */
  ended(sid: string, at: number, by: string): void {
    this.recorder.probe(at)
    this.recorder.revoked(sid, at, by)
    this.recorder.figures.revocations++
  }

  /** Every session (but `except`) ended by a request sent at `sentAt` that answered at `answeredAt`. */
  endedAll(sentAt: number, answeredAt: number, by: string, except?: string): void {
    this.recorder.probe(answeredAt)
    this.wideEnds.push({ sentAt, answeredAt, by, ...(except !== undefined && { except }) })
    for (const [sid, s] of this.sessions) {
      if (sid === except) continue
      // A session whose login answered before the end was sent existed when it ran: it ended. One whose login
      // raced the end may have been made before or after it.
      if (s.loginAnsweredAt < sentAt || by === 'delete-account') this.recorder.revoked(sid, answeredAt, by)
      else if (s.loginSentAt < answeredAt) this.mayHaveEnded.add(sid)
    }
    this.recorder.figures.revocations++
  }

  /** An end that got no answer: any session that existed may have ended. */
  endedMaybe(except?: string): void {
    for (const sid of this.sessions.keys()) if (sid !== except) this.mayHaveEnded.add(sid)
  }

  /** Whether a 401 for `sid` has a cause the soak knows of. */
  explains401(sid: string): boolean {
    return (
      this.recorder.revokedAt.has(sid) ||
      this.mayHaveEnded.has(sid) ||
      this.loggingOut.has(sid) ||
      this.endsInFlight > 0 ||
      this.deletion !== 'none'
    )
  }

  /** The timeline of `sid` and of the account-wide events, around a 401 answered at `at` (times relative to it). */
  timelineOf(sid: string, at: number): string {
    const ms = (t: number | undefined) => (t === undefined ? '?' : `${t - at >= 0 ? '+' : ''}${(t - at).toFixed(0)}`)
    return this.timeline
      .filter((e) => (e.sid === undefined || e.sid === sid) && e.sentAt > at - 10_000 && e.sentAt < at + 10_000)
      .sort((x, y) => x.sentAt - y.sentAt)
      .map(
        (e) =>
          `${e.what}${e.sid === undefined ? '' : ` ${e.sid.slice(-6)}`} sent ${ms(e.sentAt)} answered ${ms(e.answeredAt)}${e.endedAt === undefined ? '' : ` ended ${ms(e.endedAt)}`}`,
      )
      .join('; ')
  }

  /** Takes the account-wide event slot; false when another event holds it. */
  takeEvent(): boolean {
    if (this.eventBusy || this.deletion !== 'none') return false
    this.eventBusy = true
    return true
  }

  releaseEvent(): void {
    this.eventBusy = false
  }

  /** Moves on at the start and at the end of each password change: odd while one is in flight. */
  passwordEpoch = 0

  /**
   * A login sent at `epoch` succeeded with `password`: it is the one in force, unless a password change started
   * since the login was sent (the login may have been checked before it committed).
   */
  passwordWorked(password: string, epoch: number): void {
    const refused = this.refusedPasswords.get(password)
    if (refused)
      this.recorder.violate(
        'nothing answered with an error is stored',
        `${this.label}: change-password answered ${refused}, yet its new password is in force`,
      )
    if (epoch === this.passwordEpoch && epoch % 2 === 0) this.passwords = [password]
  }

  /** The certain live and trashed notes of one device, by the token prefix of its notes. */
  notesOf(prefix: string, where: Where): OwnNote[] {
    return [...this.notes.values()].filter((n) => n.token.startsWith(prefix) && n.known?.where === where)
  }

  /** The acknowledged shared note with the latest version. */
  latestShared(): NoteJson | undefined {
    return this.shared.answers.reduce<NoteJson | undefined>(
      (a, b) => (a === undefined || b.updatedOn > a.updatedOn ? b : a),
      undefined,
    )
  }
}
