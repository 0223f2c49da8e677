// One dedicated connection LISTENs on a few channels and can NOTIFY on them. "Live" is proven: each check sends a
// notice on this process's own channel and waits for it, so where notices never arrive (PgBouncer in transaction
// pooling mode) it never is. Not pg-listen: it lacks this check. The change bus (services/change-bus/postgresql.ts)
// holds one.
import { randomBytes } from 'node:crypto'
import pg from 'pg'

export interface NoticeListenerOptions {
  url: string
  connectTimeoutMs: number
  /** A check notice that has not come back within this time means the listener is lost. */
  checkTimeoutMs: number
  /** Checks repeat, as a half-open connection would otherwise look alive. */
  checkEveryMs?: number
  retryMs?: number
  /** What pg_stat_activity shows for the connection, so an operator can tell the listeners apart. */
  applicationName: string
  /** Channels to LISTEN on: SQL identifiers, never user input. */
  channels: readonly string[]
  onNotice(channel: string, payload: string): void
  /** Notices proven to arrive (true) or lost (false); called on every change. */
  onLive(live: boolean): void
}

export class NoticeListener {
  private readonly checkChannel = `notes_service_check_${process.pid}_${randomBytes(4).toString('hex')}`
  private client: pg.Client | undefined
  private timer: NodeJS.Timeout | undefined
  private live = false
  private closed = false
  private checks = 0
  private awaited: { payload: string; arrived: () => void } | undefined
  /** The last query sent on the current client, settled or not: the next one waits for it. */
  private lastQuery: Promise<unknown> = Promise.resolve()

  constructor(private readonly options: NoticeListenerOptions) {}

  /** Connects, listens and checks delivery; resolves when live or when this attempt failed (to be retried). */
  async start(): Promise<void> {
    if (this.closed) return
    const { options } = this
    const client = new pg.Client({
      connectionString: options.url,
      connectionTimeoutMillis: options.connectTimeoutMs,
      query_timeout: options.checkTimeoutMs,
      keepAlive: true,
      application_name: options.applicationName,
    })
    this.client = client
    this.lastQuery = Promise.resolve()
    client.on('error', () => this.lost(client))
    client.on('end', () => this.lost(client))
    client.on('notification', (notice) => {
      if (notice.channel === this.checkChannel) {
        if (notice.payload === this.awaited?.payload) this.awaited?.arrived()
      } else options.onNotice(notice.channel, notice.payload ?? '')
    })
    try {
      await client.connect()
      await this.inTurn(
        client,
        [...options.channels, this.checkChannel].map((channel) => `LISTEN ${channel}`).join('; '),
      )
    } catch {
      this.lost(client)
      return
    }
    await this.checkThenRepeat(client)
  }

  /** Sends a notice on the listener's connection; rejects while it has none. */
  async notify(channel: string, payload: string): Promise<void> {
    const client = this.client
    if (!client || !this.live) throw new Error('PostgreSQL notices are not live')
    await this.inTurn(client, 'SELECT pg_notify($1, $2)', [channel, payload])
  }

  /** Stops for good, reporting nothing: closing is not a loss. */
  async close(): Promise<void> {
    this.closed = true
    clearTimeout(this.timer)
    const client = this.client
    this.client = undefined
    this.live = false
    await client?.end().catch(() => {})
  }

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
      await this.inTurn(client, 'SELECT pg_notify($1, $2)', [this.checkChannel, payload])
      return await arrival
    } catch {
      return false
    } finally {
      clearTimeout(timeout)
      this.awaited = undefined
    }
  }

  /**
   * Sends a query once the client's previous one has settled. Publishes come from many requests at
   * once and checks from a timer; handing them all to client.query() would queue them inside
   * node-postgres, which deprecates a query sent while another is queued (pg 9 refuses it). One
   * at a time on one connection is what node-postgres does anyway, so this costs no round trip.
   */
  private inTurn(client: pg.Client, text: string, values?: unknown[]): Promise<void> {
    const sent = this.lastQuery.then(() => client.query(text, values))
    this.lastQuery = sent.catch(() => {})
    return sent.then(() => {})
  }

  /** Only the first sign of a loss of the current client counts. */
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
