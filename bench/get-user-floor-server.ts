// The stripped-down servers of bench/get-user-floor.ts: bare Fastify answering GET /get-user with
// only part of the service's work, so each step's cost shows as a ratio to the ceiling.
//   token:        checks the bearer token (the service's TokenService, its LRU included) and
//                 answers with the token's user;
//   data-version: the same, plus SQLite's PRAGMA data_version per request (what the account
//                 cache's freshness check cost until 2026-11-25);
//   shared-data-version: the same, with the check shared by the requests of one turn of the
//                 event loop, as the service has made it since (src/store/sqlite/data-version.ts);
//   account:      the token check plus the SQLite account read (the service's store, account
//                 cache off): the least work the contract asks of GET /get-user (decisions.md:
//                 a token whose account is gone gets 401);
//   pg-select-1:  the token check plus one `SELECT 1` round trip to PostgreSQL (the service's
//                 pool): the least any PostgreSQL lookup costs;
//   pg-account:   the token check plus the PostgreSQL store's account lookup (the service's store,
//                 accounts kept in memory while its listener is live, README "On PostgreSQL"): the
//                 least work the contract asks of GET /get-user on PostgreSQL.
// A mode ending in `+cors` adds @fastify/cors as the service registers it (origin `*`, which the
// contract requires) instead of setting the one header by hand: what the library costs on top.
// Run as a child process: argv = mode, the service's DATA_DIR, its secret and, for the pg-
// modes, the service's DATABASE_URL; the port is sent over IPC.
import cors from '@fastify/cors'
import Fastify from 'fastify'
import { createTokenService } from '../src/services/tokens.js'
import { createPostgresPool, openPostgresStore } from '../src/store/postgres/index.js'
import { sharedCheck } from '../src/store/shared-check.js'
import { openSqliteDatabase, openSqliteStore } from '../src/store/sqlite/index.js'
import type { Store } from '../src/store/types.js'

const [modeArg, dataDir, secret, databaseUrl] = process.argv.slice(2) as [string, string, string, string | undefined]
const withCors = modeArg.endsWith('+cors')
const mode = modeArg.replace(/\+cors$/, '')
const tokens = createTokenService(secret)
const onPostgres = mode.startsWith('pg-')
if (onPostgres && !databaseUrl) throw new Error(`${mode} needs the service's DATABASE_URL`)
const store: Store = databaseUrl && onPostgres
  ? await openPostgresStore({ url: databaseUrl })
  : openSqliteStore({ dataDir, accountCacheSize: 0, listingCacheBytes: 0 })
const pool = databaseUrl && mode === 'pg-select-1' ? createPostgresPool({ url: databaseUrl }) : undefined
const dataVersion = onPostgres ? undefined : openSqliteDatabase({ dataDir }).prepare('PRAGMA data_version').pluck()
const sharedDataVersion = sharedCheck(() => void dataVersion?.get())
const app = Fastify()
if (withCors) await app.register(cors, { origin: '*', strictPreflight: false })
app.get('/get-user', async (request, reply) => {
  const header = request.headers.authorization
  const token = typeof header === 'string' ? header.split(' ')[1] : undefined
  const claimed = token ? tokens.verify(token) : undefined
  if (mode === 'data-version') dataVersion?.get()
  if (mode === 'shared-data-version') await sharedDataVersion()
  if (pool) await pool.query({ name: 'select1', text: 'SELECT 1', values: [] })
  const user = mode === 'account' || mode === 'pg-account' ? claimed && (await store.findUserById(claimed._id)) : claimed
  if (!user) return reply.code(401).type('text/plain; charset=utf-8').send('Unauthorized')
  if (!withCors) void reply.header('access-control-allow-origin', '*')
  // The public fields written out, as publicUser does. Until 2026-11-24 this was
  // publicUser({ ...user, emailKey: '', passwordHash: '' }): the spread with two added keys made
  // an object that V8 copies and JSON.stringify walks slowly (1.3 µs more per call in a loop), and
  // under load it held the "token check" row at 0.57-0.59 of the ceiling; without it the row
  // measures 0.67-0.70 (README, "What the profiles showed"). The rows measured the spread, not the work.
  return { user: { _id: user._id, fullName: user.fullName, email: user.email, createdOn: user.createdOn }, message: '' }
})
await app.listen({ port: 0, host: '127.0.0.1' })
const address = app.server.address()
process.send?.({ port: typeof address === 'object' && address ? address.port : 0 })
