// A bus between processes over one driver's transport (cluster IPC, PostgreSQL NOTIFY, Redis pub/sub): this process's
// listeners get its own events at once, the transport carries them to the others, and echoes of its own are dropped.
import { randomBytes } from 'node:crypto'
import { type BusLog, type BusTransport, type ChangeBus, decodeEvent, encodeEvent } from '../change-bus.js'
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
  const sent = () => {
    if (!failing) return
    failing = false
    log?.info({ bus: driver }, 'change bus: publishing works again')
  }
  const failed = (err: unknown) => {
    if (failing) return
    failing = true
    const reason = err instanceof Error ? err.message : String(err)
    log?.warn({ bus: driver, reason }, 'change bus: publishing failed; streams on other processes see changes through the version watch, within a second, until it works again')
  }
  return {
    driver,
    publish(event) {
      if (closed) return
      listeners.change(event)
      let sending: Promise<void>
      try {
        sending = transport.send(encodeEvent(event, origin))
      } catch (err) {
        sending = Promise.reject(err instanceof Error ? err : new Error(String(err)))
      }
      sending.then(sent, failed)
    },
    subscribe: (listener) => listeners.add(listener),
    start(startLog) {
      log = startLog
      let wasLive = false
      let isLive = false
      return transport.start({
        receive(text) {
          const received = decodeEvent(text)
          if (!closed && received && received.origin !== origin) listeners.change(received.event)
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
          log?.warn({ bus: driver, reason }, 'change bus lost: streams see changes made on other processes through the version watch, within a second, until it is back')
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
