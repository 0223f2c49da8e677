// The bus of `serve --workers N` on SQLite: each worker sends its events to the primary over node:cluster's IPC channel,
// and the primary relays them to the other workers. Nothing on the network.
import cluster from 'node:cluster'
import type { BusTransport } from './bus.js'
import { type TransportBus, busOverTransport } from './over-transport.js'

/** The key of the IPC messages this bus sends, beside rate-limiter-flexible's own. */
const KEY = 'notesServiceChange'

type Relayed = { [KEY]: string }
const isRelayed = (message: unknown): message is Relayed =>
  typeof message === 'object' && message !== null && typeof (message as Partial<Relayed>)[KEY] === 'string'

/** In the primary: every worker's event goes to every other worker. */
export function relayChangesBetweenWorkers(): void {
  cluster.on('message', (from, message: unknown) => {
    if (!isRelayed(message)) return
    for (const worker of Object.values(cluster.workers ?? {})) {
      // A worker that is starting or exiting misses it: it has no stream, or its clients reconnect.
      if (worker && worker !== from && worker.isConnected()) worker.send(message, undefined, () => {})
    }
  })
}

/** In a worker. */
export function clusterBus(): TransportBus {
  const onMessage = (handler: (text: string) => void) => (message: unknown) => {
    if (isRelayed(message)) handler(message[KEY])
  }
  let listening: ((message: unknown) => void) | undefined
  const transport: BusTransport = {
    send: (text) =>
      new Promise<void>((resolve, reject) => {
        if (!process.send || !process.connected) return reject(new Error('no IPC channel to the primary'))
        process.send({ [KEY]: text } satisfies Relayed, undefined, {}, (err) => (err ? reject(err) : resolve()))
      }),
    async start(events) {
      listening = onMessage((text) => events.receive(text))
      process.on('message', listening)
      process.once('disconnect', () => events.lost('the IPC channel to the primary closed'))
      events.live()
    },
    close: async () => {
      if (listening) process.off('message', listening)
    },
  }
  return busOverTransport('cluster', transport)
}
