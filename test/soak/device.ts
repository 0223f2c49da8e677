// One client of an account (a phone, a laptop): its own session, its own notes, a replica from get-changes and one
// from a stream. It sends one request at a time, logs in again when its session has ended, and records every answer.
import { performance } from 'node:perf_hooks'
import type { Deployment } from './deployments.js'
import { type Answer, type CallOptions, type Recorder, call, routeOf, sidOf } from './http.js'
import type { AccountModel, TimelineEntry } from './model.js'
import { type Change, Replica, type StreamRecord, openLive, streamRecord, takeEvents } from './replica.js'
import type { Random } from './settings.js'

export interface SoakContext {
  deployment: Deployment
  recorder: Recorder
  /** True once traffic is to stop (devices finish their request and return). */
  trafficOver(): boolean
  /** True once streams are to stop too (after the final checks). */
  streamsOver(): boolean
  streams: StreamRecord[]
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export class Device {
  token = ''
  sid = ''
  needsLogin = true
  /** Stops the device for good (its account is gone, or it cannot log in). */
  done = false
  readonly pulled = new Replica()
  readonly live = new Replica()
  stream: StreamRecord | undefined
  /** The version of the shared note this device saw last. */
  sharedVersion = ''
  serial = 0
  /** Notes this device has tried to add: the next one's number in its token. */
  notesMade = 0

  constructor(
    readonly ctx: SoakContext,
    readonly account: AccountModel,
    readonly index: number,
    readonly random: Random,
  ) {}

  /** The prefix of the tokens of this device's notes. */
  get prefix(): string {
    return `${this.account.label}d${this.index}n`
  }

  /** A request on a base that serves; a refused connection (an instance down) tries another, as a load balancer would. */
  async request(method: string, path: string, options: CallOptions = {}, token = this.token): Promise<Answer> {
    const route = routeOf(method, path)
    const sid = token ? sidOf(token) : undefined
    for (let attempt = 0; ; attempt++) {
      const bases = this.ctx.deployment.bases()
      const answer = await call(this.random.pick(bases.length > 0 ? bases : ['http://127.0.0.1:1']), method, path, {
        ...options,
        ...(token && { token }),
      })
      if (answer.noAnswer === 'refused' && attempt < 50) {
        await sleep(200)
        continue
      }
      this.ctx.recorder.record(route, answer, sid)
      if (answer.status === 401 && sid) this.unauthorized(sid, route, answer)
      return answer
    }
  }

  private unauthorized(sid: string, route: string, answer: Answer): void {
    this.account.timeline.push({ what: `401 to ${route}`, sentAt: answer.sentAt, answeredAt: answer.answeredAt, sid })
    if (!this.account.explains401(sid)) {
      const violation = this.ctx.recorder.violate(
        'a session ends only when something ended it',
        `${this.account.label}: ${route} answered 401 for a session nothing ended`,
      )
      // What the account's sessions went through around it, completed once the traffic is over (see report.ts).
      if (violation) this.account.unexplained401s.push({ violation, sid, at: answer.answeredAt })
      this.account.mayHaveEnded.add(sid) // said once per session
    }
    if (sid === this.sid) this.needsLogin = true
  }

  /**
   * Logs in with the password in force; false when the device stops (account gone, or no password works). Once the
   * traffic is over it gives up after one round, unless `persist` (the final checks).
   */
  async login(persist = false): Promise<boolean> {
    for (let round = 0; round < 30; round++) {
      if (this.account.gone || (this.ctx.trafficOver() && !persist && round > 0)) return false
      while (this.account.loginsBlocked) await sleep(50)
      const tried = [...this.account.passwords, ...this.account.refusedPasswords.keys()]
      for (const password of tried) {
        this.account.loginsInFlight++
        const epoch = this.account.passwordEpoch
        const answer = await this.request(
          'POST',
          '/login',
          { body: { email: this.account.email, password } },
          '',
        ).finally(() => this.account.loginsInFlight--)
        if (answer.status === 200) {
          const token = answer.json.accessToken as string
          if (answer.sentAt > this.account.deletedAt) {
            this.ctx.recorder.violate(
              'no request served after its revocation',
              `${this.account.label}: login answered 200 after delete-account answered`,
            )
          }
          this.token = token
          this.sid = sidOf(token)
          this.needsLogin = false
          this.account.loggedIn(this.sid, this.index, answer.sentAt, answer.answeredAt)
          this.account.passwordWorked(password, epoch)
          return true
        }
        if (answer.status !== 400) break // no answer, 5xx: try again below
      }
      // Every password failed: a change or a deletion may be in flight; otherwise the password was lost.
      if (round === 20 && this.account.endsInFlight === 0 && this.account.deletion === 'none') {
        const refused = this.account.deletionRefused ? ` (delete-account answered ${this.account.deletionRefused})` : ''
        this.ctx.recorder.violate(
          'every acknowledged write is stored',
          `${this.account.label}: no acknowledged password logs in${refused}`,
        )
        this.account.loginLost = true
      }
      if (this.account.loginLost) break
      await sleep(100 + this.random.below(200))
    }
    this.done = true
    return false
  }

  /** Reads the feed from the pulled replica's cursor to its end. */
  async pull(): Promise<boolean> {
    for (let page = 0; page < 100; page++) {
      const since = this.pulled.cursor === undefined ? '' : `&since=${encodeURIComponent(this.pulled.cursor)}`
      const answer = await this.request('GET', `/get-changes?limit=${50 + this.random.below(200)}${since}`)
      if (answer.status !== 200) return false
      this.pulled.apply(answer.json.changes as Change[], answer.json.cursor as string)
      if (!answer.json.more) return true
    }
    return false
  }

  /** The device's stream, held from its live replica's cursor, opened again whenever it ends, until streams are over. */
  async holdStream(): Promise<void> {
    while (!this.ctx.streamsOver() && !this.account.gone && !this.done) {
      if (this.needsLogin || this.live.cursor === undefined) {
        await sleep(50)
        continue
      }
      const token = this.token
      const bases = this.ctx.deployment.bases()
      if (bases.length === 0) {
        await sleep(200)
        continue
      }
      const { answer, stream } = await openLive(this.random.pick(bases), token, this.live)
      this.ctx.recorder.record('GET /stream-changes', answer, sidOf(token))
      if (answer.status === 401) this.unauthorized(sidOf(token), 'GET /stream-changes', answer)
      if (!stream) {
        if (answer.status === 410) this.live.copyFrom(this.pulled)
        // After a 401, wait for the device to log in again; after anything else, try again a moment later.
        if (answer.status !== 401) await sleep(500)
        while (
          answer.status === 401 &&
          this.token === token &&
          !this.ctx.streamsOver() &&
          !this.account.gone &&
          !this.done
        )
          await sleep(50)
        continue
      }
      const record = streamRecord(this.account.label, token, answer.answeredAt, stream)
      const opened: TimelineEntry = {
        what: 'stream',
        sentAt: answer.sentAt,
        answeredAt: answer.answeredAt,
        sid: sidOf(token),
      }
      this.account.timeline.push(opened)
      void stream.ended.then(() => (opened.endedAt = performance.now()))
      this.stream = record
      this.ctx.streams.push(record)
      this.ctx.recorder.figures.streams++
      while (record.endedAt === undefined && !this.ctx.streamsOver()) {
        takeEvents(record, this.live)
        await sleep(100)
      }
      takeEvents(record, this.live)
      if (record.endedAt === undefined) stream.close()
      this.stream = undefined
      // A stream ended by its session: the next opens with the device's next session. One that may have been
      // ended otherwise (a process killed) opens again with the same token, whose 401, if it has ended, says so.
      if (this.ctx.recorder.revokedAt.has(sidOf(token))) {
        while (this.token === token && !this.ctx.streamsOver() && !this.account.gone && !this.done) await sleep(50)
      } else {
        await sleep(100)
      }
    }
  }

  /** Applies what the open stream received, and says whether the live replica has caught up with `listing`. */
  liveCaughtUp(listing: Parameters<Replica['differenceFrom']>[0]): string | undefined {
    if (this.stream) takeEvents(this.stream, this.live)
    return this.live.differenceFrom(listing)
  }

  /** The first listing from the feed: both replicas start from it. */
  async start(): Promise<boolean> {
    if (this.needsLogin && !(await this.login())) return false
    for (let i = 0; i < 20 && !(await this.pull()); i++) {
      if (this.needsLogin && !(await this.login())) return false
      await sleep(100)
    }
    this.live.copyFrom(this.pulled)
    return this.pulled.cursor !== undefined
  }

  /** Runs `step` until traffic is over or the device stops. */
  async run(step: (device: Device) => Promise<void>): Promise<void> {
    if (!(await this.start())) {
      this.done = true
      return
    }
    while (!this.ctx.trafficOver() && !this.account.gone && !this.done) {
      if (this.needsLogin) {
        if (!(await this.login())) break
        continue
      }
      await step(this)
    }
    if (this.account.gone) this.done = true
  }
}
