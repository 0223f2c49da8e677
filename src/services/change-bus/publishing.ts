// The one place that publishes: a Store whose writes, once committed, publish what PUBLICATIONS names. Every write
// of the service goes through the Store the app holds, so none can forget; writes of other processes that do not
// publish (the CLI's import) reach streams at their next heartbeat, when each reads the feed again.
import type { Store } from '../../store/types.js'
import type { ChangeBus, ChangeKind } from '../change-bus.js'
import { PUBLICATIONS, type Publication } from './publications.js'

type Call = (...args: unknown[]) => Promise<unknown>
type Loose = Publication<unknown[], unknown>

/** Built from PUBLICATIONS, not the store's keys, so an unlisted method cannot pass through. */
export function publishingStore(store: Store, bus: ChangeBus): Store {
  const published: Record<string, unknown> = {}
  for (const [name, publication] of Object.entries(PUBLICATIONS) as [keyof Store, Loose][]) {
    const method = (store[name] as Call).bind(store)
    if (publication === 'none') {
      published[name] = method
      continue
    }
    published[name] = (...args: unknown[]) =>
      method(...args).then((result) => {
        // After the commit and never failing the write: a bus that throws is the bus's to report.
        try {
          announce(bus, 'notes', publication.notes?.(args, result))
          announce(bus, 'sessions', publication.sessions?.(args, result))
        } catch {
          // publish() never throws; an accounts function that does must not turn a committed write into an error.
        }
        return result
      })
  }
  return published as unknown as Store
}

function announce(bus: ChangeBus, kind: ChangeKind, accounts: string | readonly string[] | undefined): void {
  if (accounts === undefined) return
  const publishedAt = Date.now()
  for (const userId of typeof accounts === 'string' ? [accounts] : accounts) bus.publish({ kind, userId, publishedAt })
}
