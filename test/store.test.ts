// Runs the store contract against every driver available here.
import { openSqliteStore } from '../src/store/sqlite/index.js'
import { storeContract } from './support/store-contract.js'

storeContract('sqlite (memory)', async () => openSqliteStore({ dataDir: ':memory:' }))
