// The stripped-down servers of bench/listing-floor.ts: bare Fastify answering GET /get-all-notes
// for one user with the service's own response bytes and only part of the service's work, so the
// cost of the PostgreSQL listing's freshness check shows as a ratio to the ceiling.
//   memory:      checks the bearer token (the service's TokenService) and sends the listing kept
//                in memory, at the end of the turn of the event loop as the service answers: the
//                listing with no freshness check at all;
//   select-1:    the same, after one `SELECT 1` round trip shared by the requests waiting at once
//                (the store's NoteVersionReader batching, sending `SELECT 1` instead): the least
//                any check that asks the database after the request arrived can cost with
//                node-postgres;
//   versions:    the same, after the PostgreSQL store's own version check (NoteVersionReader,
//                src/store/postgres/note-versions.ts, on a connection of its own with generic
//                plans, createVersionPool): what the service does before it sends a cached listing.
// Run as a child process: argv = mode, the service's secret, its DATABASE_URL and the response
// body (base64) to send; the port is sent over IPC.
import Fastify from 'fastify'
import type { QueryResultRow } from 'pg'
import { createTokenService } from '../src/services/tokens.js'
import { NoteVersionReader } from '../src/store/postgres/note-versions.js'
import { createPostgresPool, createVersionPool } from '../src/store/postgres/index.js'
import { type Query, queryOver } from '../src/store/postgres/query.js'
import { sharedCheck } from '../src/store/shared-check.js'

const [mode, secret, databaseUrl, bodyBase64] = process.argv.slice(2) as [string, string, string, string]
if (!['memory', 'select-1', 'versions'].includes(mode)) throw new Error(`unknown mode ${mode}`)
const tokens = createTokenService(secret)
const body = Buffer.from(bodyBase64, 'base64')
const query = queryOver(createPostgresPool({ url: databaseUrl }))
const versions = new NoteVersionReader(queryOver(createVersionPool({ url: databaseUrl })))
const endOfTurn = sharedCheck(() => {})

/** The store's own batching (NoteVersionReader) over a query that asks only `SELECT 1`. */
const selectOneQuery: Query = <R extends QueryResultRow>() => query<R>('select1', 'SELECT 1', [])
const selectOne = new NoteVersionReader(selectOneQuery)

const app = Fastify()
app.get('/get-all-notes', async (request, reply) => {
  const header = request.headers.authorization
  const token = typeof header === 'string' ? header.split(' ')[1] : undefined
  const claimed = token ? tokens.verify(token) : undefined
  if (!claimed) return reply.code(401).type('text/plain; charset=utf-8').send('Unauthorized')
  if (mode === 'memory') await endOfTurn()
  if (mode === 'select-1') await selectOne.read(claimed._id)
  if (mode === 'versions') await versions.read(claimed._id)
  return reply.header('access-control-allow-origin', '*').type('application/json; charset=utf-8').send(body)
})
await app.listen({ port: 0, host: '127.0.0.1' })
const address = app.server.address()
process.send?.({ port: typeof address === 'object' && address ? address.port : 0 })
