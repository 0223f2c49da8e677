// The bus over PostgreSQL LISTEN/NOTIFY (DATABASE_URL without REDIS_URL): a dedicated connection per process, proven
// live and reconnected by store/postgres/notice-listener.ts, and published on.
import { NoticeListener } from '../../store/postgres/notice-listener.js'
import type { BusTransport } from './bus.js'
import { type TransportBus, busOverTransport } from './over-transport.js'

const CHANGES_CHANNEL = 'notes_service_changes'

export interface PostgresBusOptions {
  url: string
  connectTimeoutMs: number
  /** A check (or a publish) slower than this is a loss. */
  checkTimeoutMs: number
  checkEveryMs?: number
  retryMs?: number
}

export function postgresBus(options: PostgresBusOptions): TransportBus {
  let listener: NoticeListener | undefined
  const transport: BusTransport = {
    send: async (text) => {
      if (!listener) throw new Error('the change listener has not started')
      await listener.notify(CHANGES_CHANNEL, text)
    },
    start(events) {
      listener = new NoticeListener({
        ...options,
        applicationName: 'notes-service change listener',
        channels: [CHANGES_CHANNEL],
        onNotice: (_channel, payload) => events.receive(payload),
        onLive: (live) => (live ? events.live() : events.lost('PostgreSQL notices are not arriving')),
      })
      return listener.start()
    },
    close: async () => {
      await listener?.close()
    },
  }
  return busOverTransport('postgresql', transport)
}
