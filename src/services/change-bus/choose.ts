// Which bus a process uses, from what the deployment already runs (docs/sync.md, "The change bus"): Redis when
// REDIS_URL is set, else PostgreSQL's LISTEN/NOTIFY, else the primary's IPC relay for SQLite workers, else nothing
// but this process. Each driver's client library is loaded only when chosen.
import cluster from 'node:cluster'
import type { Config } from '../../config.js'
import type { BusLog, ChangeBus } from './bus.js'
import { inProcessBus } from './in-process.js'

export interface StartableBus extends ChangeBus {
  /** Starts receiving from the other processes; resolves once listening or once a first attempt failed. */
  start(log: BusLog): Promise<void>
}

export type BusDriver = 'redis' | 'postgresql' | 'cluster' | 'in-process'

export function busDriverFor(config: Pick<Config, 'redisUrl' | 'databaseUrl'>, inWorker = cluster.isWorker): BusDriver {
  if (config.redisUrl) return 'redis'
  if (config.databaseUrl) return 'postgresql'
  return inWorker ? 'cluster' : 'in-process'
}

export async function openChangeBus(config: Config): Promise<StartableBus> {
  switch (busDriverFor(config)) {
    case 'redis':
      return (await import('./redis.js')).redisBus(config.redisUrl!)
    case 'postgresql':
      return (await import('./postgresql.js')).postgresBus({
        url: config.databaseUrl!,
        connectTimeoutMs: config.databaseConnectTimeoutMs,
        // Past the pool's own query timeout: a check slower than any query is a loss.
        checkTimeoutMs: config.databaseStatementTimeoutMs + 1000,
      })
    case 'cluster':
      return (await import('./cluster.js')).clusterBus()
    case 'in-process':
      return { ...inProcessBus(), start: async () => {} }
  }
}
