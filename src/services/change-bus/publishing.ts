// The one place that publishes: a Store whose writes, once committed, publish what store/methods.ts says. Every write
// of the service goes through the Store the app holds, so none can forget; writes of other processes that do not
// publish (the CLI's import) reach streams through the version watch (services/version-watch.ts), within a second.
import type { Store } from '../../store/types.js'
import type { ChangeBus, ChangeKind } from './bus.js'
import { STORE_METHODS, type Publishes } from '../../store/methods.js'

type Call = (...args: unknown[]) => Promise<unknown>
/** A row's publication, whatever the method's arguments and result. */
type AnyPublication = Publishes<unknown[], unknown>

/** Built from STORE_METHODS, not the store's keys, so an unlisted method cannot pass through. */
export function publishingStore(store: Store, bus: ChangeBus): Store {
  const published: Record<string, unknown> = {}
  for (const [name, { publishes: publication }] of Object.entries(STORE_METHODS) as [
    keyof Store,
    { publishes: AnyPublication },
  ][]) {
    const method = (store[name] as Call).bind(store)
    if (publication === 'nothing') {
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
