// Runs the store contract against every driver available here, each bare and under the cache
// layer (as the service opens it), so a cache can never change an answer.
import { after } from 'node:test'
import { openSqliteStore } from '../src/store/sqlite/index.js'
import type { StoreDriver } from '../src/store/driver.js'
import { storeContract } from './support/store-contract.js'
import { serviceAvailable } from './support/services.js'
import { type TestStore, cached, openTestPostgresDriver } from './support/stores.js'
import { tempDir } from './support/temp.js'

const dirs = [tempDir(), tempDir()]
after(() => dirs.forEach((dir) => dir.remove()))

const bare = (driver: StoreDriver): TestStore => driver
for (const [i, [caches, wrap]] of (
  [
    ['caches off', bare],
    ['caches on', cached],
  ] as const
).entries()) {
  storeContract(`sqlite (memory), ${caches}`, async () => wrap(openSqliteStore({ dataDir: ':memory:' })))
  storeContract(`sqlite (file, WAL, synchronous=FULL), ${caches}`, async () =>
    wrap(openSqliteStore({ dataDir: dirs[i]!.path })),
  )
  if (serviceAvailable('postgresql'))
    storeContract(`postgresql, ${caches}`, async () => wrap(await openTestPostgresDriver()))
}
