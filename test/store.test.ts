// Runs the store contract against every driver available here.
import { openSqliteStore } from '../src/store/sqlite/index.js'
import { storeContract } from './support/store-contract.js'
import { serviceAvailable } from './support/services.js'
import { openTestPostgresStore } from './support/stores.js'

storeContract('sqlite (memory)', async () => openSqliteStore({ dataDir: ':memory:' }))
if (serviceAvailable('postgresql')) storeContract('postgresql', openTestPostgresStore)
