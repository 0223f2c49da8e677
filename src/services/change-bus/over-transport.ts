// A bus between processes over one driver's transport (cluster IPC, PostgreSQL NOTIFY, Redis pub/sub): this process's
// listeners get its own events at once, the transport carries them to the others, and echoes of its own are dropped.
// One text is in flight at a time: events published meanwhile wait for it and leave together, one per account and
// kind, in the next text. A quiet process sends each event at once; a busy one sends one text per round trip instead
// of one per write, which on PostgreSQL is one pg_notify query (docs/performance.md, "The change bus's cost, and
// where PostgreSQL's write time goes").
import { randomBytes } from 'node:crypto'
import {
  type BusLog,
  type BusTransport,
  type ChangeBus,
  type ChangeEvent,
  EVENTS_PER_TEXT,
  decodeEvents,
  encodeEvents,
} from './bus.js'
import { Listeners } from './listeners.js'

export interface TransportBus extends ChangeBus {
  /** Starts receiving, logging to `log` from then on; resolves once listening or once a first attempt failed. */
  start(log: BusLog): Promise<void>
}

export function busOverTransport(driver: string, transport: BusTransport): TransportBus {
  const origin = randomBytes(8).toString('hex')
  const listeners = new Listeners()
  let log: BusLog | undefined
  let closed = false
  /** Set while sends fail, so that a lost transport is one warning, not one per write. */
  let failing = false
  const worked = () => {
    if (!failing) return
    failing = false
    log?.info({ bus: driver }, 'change bus: publishing works again')
  }
  const failed = (err: unknown) => {
    if (failing) return
    failing = true
    const reason = err instanceof Error ? err.message : String(err)
    log?.warn(
      { bus: driver, reason },
      'change bus: publishing failed; streams on other processes see changes through the version watch, within a second, until it works again',
    )
  }
  /** Events waiting for the text in flight, one per kind and account: a notice says "look again", once is enough. */
  const waiting = new Map<string, ChangeEvent>()
  const keyOf = (event: ChangeEvent) => `${event.kind}\u0000${event.userId}`
  let sending = false
  const sendWaiting = () => {
    if (closed || waiting.size === 0) {
      sending = false
      return
    }
    sending = true
    const batch = [...waiting.values()].slice(0, EVENTS_PER_TEXT)
    for (const event of batch) waiting.delete(keyOf(event))
    let sent: Promise<void>
    try {
      sent = transport.send(encodeEvents(batch, origin))
    } catch (err) {
      sent = Promise.reject(err instanceof Error ? err : new Error(String(err)))
    }
    sent.then(worked, failed).finally(sendWaiting)
  }
  return {
    driver,
    publish(event) {
      if (closed) return
      listeners.change(event)
      const key = keyOf(event)
      if (!waiting.has(key)) waiting.set(key, event)
      if (!sending) sendWaiting()
    },
    subscribe: (listener) => listeners.add(listener),
    start(startLog) {
      log = startLog
      let wasLive = false
      let isLive = false
      return transport.start({
        receive(text) {
          const received = decodeEvents(text)
          if (closed || !received || received.origin === origin) return
          for (const event of received.events) listeners.change(event)
        },
        live() {
          if (closed || isLive) return
          isLive = true
          if (wasLive) log?.info({ bus: driver }, 'change bus is back: every stream reads the feed again')
          else log?.info({ bus: driver }, 'change bus is live: changes reach streams on every process')
          // Even the first time: streams opened before it was live missed other processes' notices.
          listeners.resync()
          wasLive = true
        },
        lost(reason) {
          if (closed || !isLive) return
          isLive = false
          log?.warn(
            { bus: driver, reason },
            'change bus lost: streams see changes made on other processes through the version watch, within a second, until it is back',
          )
        },
      })
    },
    async close() {
      closed = true
      listeners.clear()
      await transport.close()
    },
  }
}
