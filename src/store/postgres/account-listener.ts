// One connection per process that LISTENs for migration 3's account notices and tells the
// account cache (account-cache.ts) which account changed, and whether it is listening at all.
// Written here rather than taken from pg-listen (last released in 2020) because the cache needs
// exactly two signals, "live" and "lost", and a loss that is noticed: a connection that fails,
// ends, or does not answer a check within the timeout is lost; the listener reconnects after a
// pause and is live again only once LISTEN has returned.
// https://www.postgresql.org/docs/current/sql-listen.html
import pg from 'pg'

/** The channel migration 3's trigger notifies. */
export const ACCOUNT_CHANNEL = 'notes_service_accounts'

export interface AccountListenerOptions {
  url: string
  connectTimeoutMs: number
  /** A check query that takes longer than this means the connection is lost. */
  checkTimeoutMs: number
  /** How often the connection is checked (a half-open one would otherwise look alive). */
  checkEveryMs?: number
  /** The pause before reconnecting after a loss. */
  retryMs?: number
  /** An account changed; undefined: any account may have (TRUNCATE). */
  onNotice(id: string | undefined): void
  /** Listening (true) or lost (false); called on every change. */
  onLive(live: boolean): void
}

export class AccountListener {
  private client: pg.Client | undefined
  private timer: NodeJS.Timeout | undefined
  private live = false
  private closed = false

  constructor(private readonly options: AccountListenerOptions) {}

  /** Connects and listens; resolves when live or when this attempt failed (a retry follows). */
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
    })
    try {
      await client.connect()
      await client.query(`LISTEN ${ACCOUNT_CHANNEL}`)
    } catch {
      this.lost(client)
      return
    }
    if (this.client !== client) return // lost or closed meanwhile
    this.setLive(true)
    this.timer = setTimeout(() => void this.check(client), this.options.checkEveryMs ?? 2000).unref()
  }

  async close(): Promise<void> {
    this.closed = true
    clearTimeout(this.timer)
    const client = this.client
    this.client = undefined
    this.setLive(false)
    await client?.end().catch(() => {})
  }

  private async check(client: pg.Client): Promise<void> {
    try {
      await client.query('SELECT 1')
    } catch {
      this.lost(client)
      return
    }
    if (this.client === client) this.timer = setTimeout(() => void this.check(client), this.options.checkEveryMs ?? 2000).unref()
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
