// The soak's requests and what it records of them. Each request goes on a connection of its own (no agent), so the
// kernel and node:cluster deal them to every worker, and a killed process cuts only what it held. Times are
// performance.now() in the soak's process: `sentAt` is taken before the request is made (never later than its
// bytes leave) and `answeredAt` when the status line arrives (never earlier than the server answered), so the
// comparisons built on them are conservative toward the server.
import { request } from 'node:http'
import { performance } from 'node:perf_hooks'

/** A request that got no HTTP answer: refused (never reached a server), or cut or unanswered (it may have taken effect). */
export type NoAnswer = 'refused' | 'cut' | 'timeout'

export interface Answer {
  status: number
  /** The JSON body, or {} for the bare 401 and bodies that are not JSON. */
  json: Record<string, unknown>
  headers: Record<string, string | string[] | undefined>
  sentAt: number
  answeredAt: number
  /** Set when there is no answer (status 0). */
  noAnswer?: NoAnswer
  error?: string
}

export interface CallOptions {
  token?: string
  body?: unknown
  headers?: Record<string, string>
}

/** A request without an answer within this long counts as unanswered ('timeout'): its outcome is unknown. */
export const ANSWER_TIMEOUT_MS = 15_000

export function call(base: string, method: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers }
  const body = options.body === undefined ? undefined : JSON.stringify(options.body)
  if (body !== undefined) {
    headers['content-type'] = 'application/json'
    // Node sends a DELETE's body with neither a length nor chunked framing unless told its length.
    headers['content-length'] = String(Buffer.byteLength(body))
  }
  if (options.token) headers.authorization = `Bearer ${options.token}`
  const sentAt = performance.now()
  return new Promise((resolve) => {
    let answeredAt = 0
    let settled = false
    const done = (answer: Omit<Answer, 'sentAt' | 'answeredAt'>) => {
      if (settled) return
      settled = true
      resolve({ ...answer, sentAt, answeredAt: answeredAt || performance.now() })
    }
    const failed = (err: Error & { code?: string }, noAnswer?: NoAnswer) =>
      done({
        status: 0,
        json: {},
        headers: {},
        noAnswer: noAnswer ?? (err.code === 'ECONNREFUSED' ? 'refused' : 'cut'),
        error: err.code ?? err.message,
      })
    const req = request(new URL(path, base), { method, headers, agent: false }, (res) => {
      answeredAt = performance.now()
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.on('end', () => {
        let json: Record<string, unknown> = {}
        try {
          const parsed: unknown = JSON.parse(text)
          if (parsed && typeof parsed === 'object') json = parsed as Record<string, unknown>
        } catch {
          json = { message: text }
        }
        done({ status: res.statusCode ?? 0, json, headers: res.headers })
      })
      res.on('error', (err) => failed(err))
      res.on('aborted', () => failed(new Error('answer cut'), 'cut'))
    })
    req.on('error', (err) => failed(err))
    req.setTimeout(ANSWER_TIMEOUT_MS, () => {
      failed(new Error(`no answer within ${ANSWER_TIMEOUT_MS / 1000} s`), 'timeout')
      req.destroy()
    })
    req.end(body)
  })
}

/** The message of an answer, as the report shows it. */
export const messageOf = (json: Record<string, unknown>): string =>
  typeof json.message === 'string' ? json.message : json.message === undefined ? '' : JSON.stringify(json.message)

/** The session id a token names. */
export const sidOf = (token: string): string =>
  (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sid: string }).sid

/** A route as the report names it: ids replaced. */
export const routeOf = (method: string, path: string): string =>
  `${method} ${path.split('?')[0]!.replace(/\/[0-9a-f]{24,32}(?=\/|$)/g, '/:id')}`

export interface Violation {
  invariant: string
  detail: string
}

/** Everything a run counts, and the invariants it found broken. */
export class Recorder {
  requests = 0
  readonly kinds = new Map<string, { count: number; routes: Set<string> }>()
  readonly violations: Violation[] = []
  readonly figures = {
    revocations: 0,
    cliRevocations: 0,
    kills: 0,
    streams: 0,
    streamEnds: [] as Array<{ lag: number; by: string }>,
    accounts: 0,
    deletedAccounts: 0,
  }
  /** Answers a session got with a 2xx, for the revocation check at the end. */
  readonly served: Array<{ sid: string; route: string; sentAt: number; answeredAt: number }> = []
  /** When the first revocation covering a session answered, and which. */
  readonly revokedAt = new Map<string, { at: number; by: string }>()
  /**
   * How late the servers were when a revocation answered: the time a GET /healthz sent to every base at that
   * moment took to come back, by the revocation's answer time. See streamEndBoundMs.
   */
  readonly lateness = new Map<number, number>()
  /** Sends those probes; set by the soak once it knows its servers. */
  probe: (at: number) => void = () => {}
  private readonly violationCounts = new Map<string, number>()

  /** Probes every base in `bases` for a revocation that answered at `at`. */
  probeBases(at: number, bases: string[]): void {
    for (const base of bases) {
      void call(base, 'GET', '/healthz').then((a) =>
        this.lateness.set(at, Math.max(this.lateness.get(at) ?? 0, a.answeredAt - a.sentAt)),
      )
    }
  }

  /** Counts an answer; a 5xx is a violation. */
  record(route: string, answer: Answer, sid?: string): void {
    this.requests++
    if (answer.status >= 200 && answer.status < 300) {
      if (sid) this.served.push({ sid, route, sentAt: answer.sentAt, answeredAt: answer.answeredAt })
      return
    }
    const kind =
      answer.status === 0
        ? `no answer (${answer.noAnswer}: ${answer.error})`
        : `${answer.status} ${messageOf(answer.json)}`
    const entry = this.kinds.get(kind) ?? { count: 0, routes: new Set<string>() }
    entry.count++
    entry.routes.add(route)
    this.kinds.set(kind, entry)
    if (answer.status >= 500) this.violate('no 5xx', `${route} answered ${kind}`)
  }

  revoked(sid: string, at: number, by: string): void {
    const known = this.revokedAt.get(sid)
    if (!known || at < known.at) this.revokedAt.set(sid, { at, by })
  }

  /** Records a broken invariant; past 20 of one invariant, only counts them (the report says how many). */
  violate(invariant: string, detail: string): { invariant: string; detail: string } | undefined {
    const count = (this.violationCounts.get(invariant) ?? 0) + 1
    this.violationCounts.set(invariant, count)
    if (count > 20) return undefined
    const violation = { invariant, detail }
    this.violations.push(violation)
    return violation
  }

  violationsOf(invariant: string): number {
    return this.violationCounts.get(invariant) ?? 0
  }

  get brokenInvariants(): Map<string, number> {
    return this.violationCounts
  }

  /** No request is served for a session after its revocation answered. */
  checkServedAfterRevocation(): void {
    for (const s of this.served) {
      const revoked = this.revokedAt.get(s.sid)
      if (revoked && s.sentAt > revoked.at) {
        this.violate(
          'no request served after its revocation',
          `${s.route} sent ${(s.sentAt - revoked.at).toFixed(0)} ms after ${revoked.by} answered, answered 2xx`,
        )
      }
    }
  }
}
