// The bus over Redis pub/sub (REDIS_URL): one subscriber connection per process, and one to publish on, since a
// subscribed connection can do nothing else.
import { Redis, type RedisOptions } from 'ioredis'
import type { BusTransport } from './bus.js'
import { type TransportBus, busOverTransport } from './over-transport.js'

/** Pub/sub channels are global to a Redis server, whatever its database: the database number keeps deployments apart. */
export function redisChannel(url: string): string {
  const db = /^\/(\d+)/.exec(new URL(url).pathname)?.[1] ?? '0'
  return `notes-service:changes:${db}`
}

const CONNECTION: RedisOptions = {
  lazyConnect: true,
  connectTimeout: 2000,
  retryStrategy: (times) => Math.min(times * 100, 2000),
}

export function redisBus(url: string): TransportBus {
  const channel = redisChannel(url)
  // Fail at once while disconnected: a write never waits for Redis.
  const publisher = new Redis(url, {
    ...CONNECTION,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 500,
  })
  // Subscribed again by hand on every connection, so that "live" means the subscription is in place.
  const subscriber = new Redis(url, { ...CONNECTION, autoResubscribe: false, maxRetriesPerRequest: 0 })
  publisher.on('error', () => {})
  const transport: BusTransport = {
    send: async (text) => {
      await publisher.publish(channel, text)
    },
    start(events) {
      subscriber.on('message', (from: string, text: string) => {
        if (from === channel) events.receive(text)
      })
      return new Promise<void>((resolve) => {
        subscriber.on('ready', () => {
          subscriber.subscribe(channel).then(
            () => {
              events.live()
              resolve()
            },
            (err: unknown) => {
              events.lost(err instanceof Error ? err.message : String(err))
              resolve()
            },
          )
        })
        subscriber.on('error', (err: Error) => {
          events.lost(err.message)
          resolve()
        })
        subscriber.on('close', () => events.lost('connection closed'))
        // Failures are reported through the events above; ioredis keeps reconnecting.
        publisher.connect().catch(() => {})
        subscriber.connect().catch(() => {})
      })
    },
    close: async () => {
      publisher.disconnect()
      subscriber.disconnect()
    },
  }
  return busOverTransport('redis', transport)
}
