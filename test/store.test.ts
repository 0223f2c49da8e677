// Runs the store contract against every driver available here.
import { after } from 'node:test'
import { openSqliteStore } from '../src/store/sqlite/index.js'
import { storeContract } from './support/store-contract.js'
import { serviceAvailable } from './support/services.js'
import { openTestPostgresStore } from './support/stores.js'
import { tempDir } from './support/temp.js'

storeContract('sqlite (memory)', async () => openSqliteStore({ dataDir: ':memory:' }))

const dir = tempDir()
after(() => dir.remove())
storeContract('sqlite (file, WAL, synchronous=FULL)', async () => openSqliteStore({ dataDir: dir.path }))
if (serviceAvailable('postgresql')) storeContract('postgresql', openTestPostgresStore)
