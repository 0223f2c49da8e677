// One connection per process that LISTENs for the notices migration 10's trigger sends with
// every change of an account's version, and tells the cache layer (src/store/cache) which account
// changed, and whether notices reach it at all (StoreDriver.listenForAccountChanges).
// https://www.postgresql.org/docs/current/sql-listen.html
//
// "Live" is proven, not assumed: every check sends a notice on a channel of this process's own
// and waits for it to come back through the listening connection. A connection that fails, ends,
// or does not deliver the check within the timeout is lost; the listener reconnects after a pause
// and is live again only once a check has come back. This also keeps the cache off where LISTEN
// cannot work, e.g. behind PgBouncer in transaction pooling mode, where the connection answers
// queries but notices never arrive (https://www.pgbouncer.org/features.html).
// Written here rather than taken from pg-listen (last released in 2020) because the cache needs
// exactly these two signals, "live" and "lost", and the delivery check.
import { randomBytes } from 'node:crypto'
import pg from 'pg'

/** The channel migration 10's trigger notifies, with the account's id ('' for every account). */
export const ACCOUNT_CHANNEL = 'notes_service_account_versions'

export interface AccountListenerOptions {
  url: string
  connectTimeoutMs: number
  /** A check notice that has not come back within this time means the listener is lost. */
  checkTimeoutMs: number
  /** How often delivery is checked (a half-open connection would otherwise look alive). */
  checkEveryMs?: number
  /** The pause before reconnecting after a loss. */
  retryMs?: number
  /** An account's version changed; undefined: any account's may have (TRUNCATE). */
  onNotice(id: string | undefined): void
  /** Listening with notices proven to arrive (true) or lost (false); called on every change. */
  onLive(live: boolean): void
}

export class AccountListener {
  /** This process's own channel for delivery checks: no other instance hears them. */
  private readonly checkChannel = `notes_service_check_${process.pid}_${randomBytes(4).toString('hex')}`
  private client: pg.Client | undefined
  private timer: NodeJS.Timeout | undefined
  private live = false
  private closed = false
  private checks = 0
  /** The check notice awaited now, and how to report it. */
  private awaited: { payload: string; arrived: () => void } | undefined

  constructor(private readonly options: AccountListenerOptions) {}

  /** Connects, listens and checks delivery; resolves when live or when this attempt failed (a retry follows). */
  async start(): Promise<void> {
    if (this.closed) return
    const { options } = this
    const client = new pg.Client({
      connectionString: options.url,
      connectionTimeoutMillis: options.connectTimeoutMs,
      query_timeout: options.checkTimeoutMs,
      keepAlive: true,
      application_name: 'notes-service account listener',
    })
    this.client = client
    client.on('error', () => this.lost(client))
    client.on('end', () => this.lost(client))
    client.on('notification', (notice) => {
      if (notice.channel === ACCOUNT_CHANNEL) options.onNotice(notice.payload || undefined)
      else if (notice.channel === this.checkChannel && notice.payload === this.awaited?.payload) this.awaited?.arrived()
    })
    try {
      await client.connect()
      await client.query(`LISTEN ${ACCOUNT_CHANNEL}; LISTEN ${this.checkChannel}`)
    } catch {
      this.lost(client)
      return
    }
    await this.checkThenRepeat(client)
  }

  /** Stops for good. Reports nothing: closing is not a loss (the store stops its cache itself). */
  async close(): Promise<void> {
    this.closed = true
    clearTimeout(this.timer)
    const client = this.client
    this.client = undefined
    this.live = false
    await client?.end().catch(() => {})
  }

  /** One delivery check: live while it passes, lost when it does not; then the next one. */
  private async checkThenRepeat(client: pg.Client): Promise<void> {
    const delivered = await this.delivered(client)
    if (this.client !== client) return // lost or closed meanwhile
    if (!delivered) return this.lost(client)
    this.setLive(true)
    this.timer = setTimeout(() => void this.checkThenRepeat(client), this.options.checkEveryMs ?? 2000).unref()
  }

  /** Sends a notice to this process's check channel; true once it has come back in time. */
  private async delivered(client: pg.Client): Promise<boolean> {
    const payload = String(++this.checks)
    let timeout: NodeJS.Timeout | undefined
    const arrival = new Promise<boolean>((resolve) => {
      this.awaited = { payload, arrived: () => resolve(true) }
      timeout = setTimeout(() => resolve(false), this.options.checkTimeoutMs).unref()
    })
    try {
      await client.query('SELECT pg_notify($1, $2)', [this.checkChannel, payload])
      return await arrival
    } catch {
      return false
    } finally {
      clearTimeout(timeout)
      this.awaited = undefined
    }
  }

  /** Called for every sign of a loss; only the first one for the current client counts. */
  private lost(client: pg.Client): void {
    if (this.client !== client) return
    this.client = undefined
    clearTimeout(this.timer)
    this.setLive(false)
    client.end().catch(() => {})
    if (!this.closed) this.timer = setTimeout(() => void this.start(), this.options.retryMs ?? 1000).unref()
  }

  private setLive(live: boolean): void {
    if (this.live === live) return
    this.live = live
    this.options.onLive(live)
  }
}
