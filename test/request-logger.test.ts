// The lazy request logger (src/plugins/request-logger.ts): a request that logs nothing makes no
// pino child; one that logs writes exactly what pino's own child would (same bindings, same level
// rules), and the service's request lines still carry their request id.
import assert from 'node:assert/strict'
import { describe, it, mock } from 'node:test'
import Fastify, { type FastifyBaseLogger } from 'fastify'
import { buildApp } from '../src/app.js'
import { LazyRequestLogger } from '../src/plugins/request-logger.js'
import { loggerOptions } from '../src/server.js'
import { openSqliteStore } from '../src/store/sqlite/index.js'
import { TEST_SECRET, logLinesInto, testConfig } from './support/harness.js'

type Line = Record<string, unknown>

/** The JSON lines written so far, parsed. */
const parsed = (text: string[]): Line[] => text.map((l) => JSON.parse(l) as Line)

/** A pino logger (Fastify's own, as the service makes it) writing its lines into `text`. */
function pinoInto(level: string, text: string[]): FastifyBaseLogger {
  return Fastify({ logger: { ...loggerOptions(level), stream: logLinesInto(text) } }).log
}

describe('lazy request logger', () => {
  it('makes no child for calls below the level, and one child for all calls at or above it', () => {
    const text: string[] = []
    const parent = pinoInto('warn', text)
    const child = mock.method(parent, 'child')
    const log = new LazyRequestLogger(parent, { reqId: 'req-1' }, {})
    log.info('not written')
    log.debug({ a: 1 }, 'not written either')
    log.trace('nor this')
    assert.equal(child.mock.callCount(), 0)
    assert.equal(log.level, 'warn')
    log.warn({ route: '/x' }, 'first')
    log.error('second %s', 'formatted')
    assert.equal(child.mock.callCount(), 1)
    assert.deepEqual(
      parsed(text).map((l) => [l.level, l.reqId, l.msg, l.route]),
      [
        [40, 'req-1', 'first', '/x'],
        [50, 'req-1', 'second formatted', undefined],
      ],
    )
  })

  it('writes the same line as pino\'s own child, secrets redacted alike', () => {
    const lazyText: string[] = []
    const ownText: string[] = []
    const lazy = new LazyRequestLogger(pinoInto('info', lazyText), { reqId: 'req-7' }, {})
    const own = pinoInto('info', ownText).child({ reqId: 'req-7' }, {})
    for (const log of [lazy, own]) log.info({ password: 'hunter2', accessToken: 'eyJ.x.y', path: '/login' }, 'request')
    const strip = (l: Line) => ({ ...l, time: 0, pid: 0, hostname: '' })
    assert.deepEqual(parsed(lazyText).map(strip), parsed(ownText).map(strip))
    assert.equal(parsed(lazyText)[0]?.password, '[redacted]')
  })

  it('honours a level of its own (a route logLevel) and a level set later', () => {
    const text: string[] = []
    const parent = pinoInto('warn', text)
    const verbose = new LazyRequestLogger(parent, { reqId: 'req-2' }, { level: 'debug' })
    assert.equal(verbose.level, 'debug')
    verbose.debug('route-level debug')
    const quiet = new LazyRequestLogger(parent, { reqId: 'req-3' }, { level: 'error' })
    quiet.warn('below the route level')
    const raised = new LazyRequestLogger(parent, { reqId: 'req-4' }, {})
    raised.level = 'info'
    raised.info('after the level was lowered to info')
    assert.deepEqual(
      parsed(text).map((l) => [l.reqId, l.msg]),
      [
        ['req-2', 'route-level debug'],
        ['req-4', 'after the level was lowered to info'],
      ],
    )
    // child() of the stand-in is a real child with both bindings.
    verbose.child({ part: 'sub' }).debug('nested')
    const nested = parsed(text)[2]
    assert.deepEqual([nested?.reqId, nested?.part, nested?.msg], ['req-2', 'sub', 'nested'])
  })

  it('the service still writes request lines with their request id, one per request', async () => {
    const text: string[] = []
    const stream = logLinesInto(text)
    const store = openSqliteStore({ dataDir: ':memory:' })
    const app = await buildApp({ config: testConfig(), store, secret: TEST_SECRET, logger: { ...loggerOptions('info'), stream } })
    try {
      await app.inject({ method: 'GET', url: '/get-user' })
      await app.inject({ method: 'GET', url: '/healthz' })
      const requests = parsed(text).filter((l) => l.msg === 'request')
      assert.deepEqual(requests.map((l) => [l.path, l.statusCode]), [['/get-user', 401], ['/healthz', 200]])
      const ids = requests.map((l) => l.reqId)
      assert.ok(ids.every((id) => typeof id === 'string' && id.length > 0), `request ids: ${JSON.stringify(ids)}`)
      assert.notEqual(ids[0], ids[1])
    } finally {
      await app.close()
      await store.close()
    }
  })
})
