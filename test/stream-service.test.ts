// The parts of live updates below the route: notices coalesce into at most one more feed read, a reconnected bus makes
// every stream read again, a session notice is checked past the cache, the bus between processes drops its own echoes,
// and the publishing Store publishes what each committed write changed and never fails a write for the bus.
import assert from 'node:assert/strict'
import { type Server, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import { defaultConfig } from '../src/config.js'
import {
  type BusTransport,
  type ChangeBus,
  type ChangeEvent,
  type TransportEvents,
  EVENTS_PER_TEXT,
  decodeEvents,
  encodeEvents,
} from '../src/services/change-bus/bus.js'
import { inProcessBus } from '../src/services/change-bus/in-process.js'
import { busOverTransport } from '../src/services/change-bus/over-transport.js'
import { publishingStore } from '../src/services/change-bus/publishing.js'
import type { ChangesAnswer } from '../src/services/changes.js'
import type { Authenticated } from '../src/services/sessions.js'
import { LiveStreams } from '../src/services/streams.js'
import { startEventStream } from '../src/routes/stream-wire.js'
import { cachedStore } from '../src/store/cache/index.js'
import { DEFAULT_LIMITS } from '../src/store/limits.js'
import { openSqliteStore } from '../src/store/sqlite/index.js'
import type { UserRecord } from '../src/store/types.js'
import { type SseStream, openStream } from './support/sse.js'
import { makeNote, makeUser } from './support/store-contract.js'

const caller = (userId: string): Authenticated => ({
  account: { _id: userId } as UserRecord,
  sessionId: 'session',
  issuedAt: Math.floor(Date.now() / 1000),
})

/** A feed whose reads wait until the test lets them go. */
function heldFeed() {
  const reads: Array<{ cursor: string; release: (answer: ChangesAnswer) => void }> = []
  return {
    reads,
    read: (_userId: string, cursor: string) =>
      new Promise<ChangesAnswer>((resolve) => reads.push({ cursor, release: resolve })),
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 30))

describe('a live stream and its feed reads', () => {
  let server: Server
  let base: string
  let streams: LiveStreams
  let bus: ChangeBus
  const feed = heldFeed()
  let admitted = true
  const checks: boolean[] = []
  before(async () => {
    bus = inProcessBus()
    streams = new LiveStreams({
      bus,
      readFeed: feed.read,
      currentCursor: async () => 'c0',
      stillAdmitted: async (_caller, fresh) => (checks.push(fresh), admitted),
      settings: { ...defaultConfig.streams, heartbeatMs: 60_000 },
    })
    server = createServer((request, response) => {
      const userId = new URL(request.url ?? '/', 'http://x').searchParams.get('user') ?? 'u'
      streams.prepare(caller(userId), undefined).then(
        (prepared) => startEventStream(prepared, response, {}),
        () => response.destroy(),
      )
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  after(async () => {
    streams.shutdown()
    server.closeAllConnections()
    server.close()
    await bus.close()
  })
  const open = (user: string): Promise<SseStream> => openStream(base, { query: { user } })

  it('coalesces a burst of notices into the read in flight and one more', async () => {
    const s = await open('burst')
    await settle()
    assert.equal(feed.reads.length, 1, 'the read as it starts')
    feed.reads.splice(0)[0]!.release({ changes: [], cursor: 'c0', more: false })
    await settle()
    const publishedAt = Date.now()
    bus.publish({ kind: 'notes', userId: 'burst', publishedAt })
    await settle()
    assert.equal(feed.reads.length, 1)
    for (let i = 0; i < 50; i++) bus.publish({ kind: 'notes', userId: 'burst', publishedAt })
    await settle()
    assert.equal(feed.reads.length, 1, 'a read is in flight: the notices wait for it')
    feed.reads[0]!.release({ changes: [{ noteId: 'n1', json: '{"a":1}', cursor: 'c1' }], cursor: 'c1', more: false })
    await settle()
    assert.equal(feed.reads.length, 2, 'one more read for all the notices that came during the first')
    assert.equal(feed.reads[1]!.cursor, 'c1', 'from where the first read ended')
    feed.reads[1]!.release({ changes: [], cursor: 'c1', more: false })
    await settle()
    assert.equal(feed.reads.length, 2)
    await s.waitForEvents(1)
    assert.deepEqual(s.events, [{ id: 'c1', event: 'change', data: '{"noteId":"n1","note":{"a":1}}' }])
    // Another account's notices read nothing for this stream.
    bus.publish({ kind: 'notes', userId: 'someone else', publishedAt })
    await settle()
    assert.equal(feed.reads.length, 2)
    s.close()
  })

  it('reads again at once while a page says more follow', async () => {
    feed.reads.length = 0
    const s = await open('pages')
    await settle()
    feed.reads.splice(0)[0]!.release({ changes: [], cursor: 'c0', more: false })
    await settle()
    bus.publish({ kind: 'notes', userId: 'pages', publishedAt: Date.now() })
    await settle()
    feed.reads[0]!.release({ changes: [{ noteId: 'n1', json: null, cursor: 'c1' }], cursor: 'c1', more: true })
    await settle()
    assert.equal(feed.reads.length, 2)
    feed.reads[1]!.release({ changes: [{ noteId: 'n2', json: null, cursor: 'c2' }], cursor: 'c2', more: false })
    await s.waitForEvents(2)
    assert.deepEqual(
      s.events.map((e) => e.id),
      ['c1', 'c2'],
    )
    s.close()
  })

  it('reads the feed again when the bus comes (back) live: notices may have been missed meanwhile', async () => {
    feed.reads.length = 0
    const transport = fakeTransport()
    const remote = busOverTransport('fake', transport)
    const other = new LiveStreams({ ...streams.deps, bus: remote })
    try {
      // A stream of `other` hears the fake transport.
      const events = await started(remote, transport)
      const prepared = await other.prepare(caller('r3'), undefined)
      const response = await responseFor(prepared)
      await settle()
      // A stream reads once as it starts, for notices published while it was being prepared.
      assert.equal(feed.reads.length, 1)
      feed.reads[0]!.release({ changes: [], cursor: 'c0', more: false })
      await settle()
      events.live()
      await settle()
      assert.equal(feed.reads.length, 2)
      feed.reads[1]!.release({ changes: [], cursor: 'c0', more: false })
      response.close()
    } finally {
      other.shutdown()
      await remote.close()
    }
  })

  it('checks the session past the cache on a sessions notice, and ends the stream when it has ended', async () => {
    checks.length = 0
    feed.reads.length = 0
    const s = await open('session')
    await settle()
    // Checked once past the cache as it starts, for a session ended while it was being prepared.
    assert.deepEqual(checks.splice(0), [true])
    feed.reads.splice(0).forEach((read) => read.release({ changes: [], cursor: 'c0', more: false }))
    bus.publish({ kind: 'sessions', userId: 'session', publishedAt: Date.now() })
    await settle()
    assert.deepEqual(checks, [true])
    admitted = false
    bus.publish({ kind: 'sessions', userId: 'session', publishedAt: Date.now() })
    assert.equal(await s.ended, 'end')
    admitted = true
  })
})

/** A transport whose far side the test plays. */
function fakeTransport(failing = false): BusTransport & { sent: string[]; events?: TransportEvents } {
  const transport: BusTransport & { sent: string[]; events?: TransportEvents } = {
    sent: [],
    send: async (text) => {
      if (failing) throw new Error('down')
      transport.sent.push(text)
    },
    start: async (events) => {
      transport.events = events
    },
    close: async () => {},
  }
  return transport
}

async function started(
  bus: ReturnType<typeof busOverTransport>,
  transport: ReturnType<typeof fakeTransport>,
): Promise<TransportEvents> {
  await bus.start({ info: () => {}, warn: () => {} })
  return transport.events!
}

/** Starts a prepared stream on a real socket; resolves to the client's side. */
async function responseFor(prepared: Awaited<ReturnType<LiveStreams['prepare']>>): Promise<SseStream> {
  const server = createServer((_request, response) => startEventStream(prepared, response, {}))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const s = await openStream(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
  const close = s.close.bind(s)
  s.close = () => {
    close()
    server.closeAllConnections()
    server.close()
  }
  return s
}

describe('the bus between processes', () => {
  it('encodes and decodes every list of events, and ignores texts it did not write', () => {
    const event = fc
      .record({
        kind: fc.constantFrom('notes' as const, 'sessions' as const),
        userId: fc.string(),
        publishedAt: fc.nat(),
      })
      .map((e) => ({ ...e }))
    fc.assert(
      fc.property(fc.array(event, { minLength: 1, maxLength: EVENTS_PER_TEXT }), fc.string(), (events, origin) => {
        assert.deepEqual(decodeEvents(encodeEvents(events, origin)), { events, origin })
      }),
    )
    // The largest text fits PostgreSQL's NOTIFY payload (under 8000 bytes) with ids as long as the service makes them.
    const longest = Array.from({ length: EVENTS_PER_TEXT }, () => ({
      kind: 'sessions' as const,
      userId: 'f'.repeat(24),
      publishedAt: Date.now(),
    }))
    assert.ok(Buffer.byteLength(encodeEvents(longest, 'f'.repeat(16))) < 8000)
    const texts = [
      '',
      'null',
      '{}',
      '[]',
      '["x","u",1,"o"]',
      '["n",1,1,"o"]',
      '["n","u","1","o"]',
      '["n","u",1]',
      '[["n","u",1,"o"],["n","v",1,"p"]]',
      '[["n","u",1,"o"],"x"]',
    ]
    for (const text of texts) assert.equal(decodeEvents(text), undefined, text)
  })

  it('sends one text at a time: what is published meanwhile leaves in the next, once per account and kind', async () => {
    const transport = fakeTransport()
    const releases: Array<() => void> = []
    transport.send = (text) => {
      transport.sent.push(text)
      return new Promise((resolve) => releases.push(resolve))
    }
    const bus = busOverTransport('fake', transport)
    await started(bus, transport)
    const kinds = ['notes', 'sessions'] as const
    const published = Array.from({ length: 200 }, (_, i) => ({
      kind: kinds[i % 2]!,
      userId: `u${i % 70}`,
      publishedAt: i,
    }))
    for (const event of published) bus.publish(event)
    assert.equal(transport.sent.length, 1, 'the first goes at once, the others wait for it')
    while (releases.length > 0) {
      releases.shift()!()
      await settle()
    }
    const sent = transport.sent.map((text) => decodeEvents(text)!.events)
    assert.ok(sent.every((events) => events.length <= EVENTS_PER_TEXT))
    const keysOf = (events: ChangeEvent[]) => events.map((e) => `${e.kind}:${e.userId}`)
    for (const events of sent)
      assert.equal(new Set(keysOf(events)).size, events.length, 'each account and kind once in a text')
    const distinct = new Set(keysOf(published))
    assert.deepEqual(new Set(keysOf(sent.flat())), distinct)
    // The first event alone, then every account and kind that waited for it (the first's again among them).
    assert.deepEqual(
      sent.map((events) => events.length),
      [1, EVENTS_PER_TEXT, distinct.size - EVENTS_PER_TEXT],
    )
    // Once the queue is empty, the next event leaves at once again.
    bus.publish({ kind: 'notes', userId: 'later', publishedAt: 1 })
    assert.equal(decodeEvents(transport.sent.at(-1)!)!.events[0]!.userId, 'later')
    releases.shift()!()
    await bus.close()
  })

  it("delivers its own events at once, others' when they arrive, and drops its own echoes", async () => {
    const transport = fakeTransport()
    const bus = busOverTransport('fake', transport)
    const got: ChangeEvent[] = []
    bus.subscribe({ change: (e) => got.push(e), resync: () => {} })
    const events = await started(bus, transport)
    const mine = { kind: 'notes' as const, userId: 'u', publishedAt: 1 }
    bus.publish(mine)
    assert.deepEqual(got, [mine])
    await settle()
    assert.equal(transport.sent.length, 1)
    events.receive(transport.sent[0]!)
    assert.deepEqual(got, [mine], 'its own echo is not delivered twice')
    const theirs = { kind: 'sessions' as const, userId: 'v', publishedAt: 2 }
    events.receive(encodeEvents([theirs], 'another process'))
    assert.deepEqual(got, [mine, theirs])
    await bus.close()
  })

  it('logs a failing transport once, delivers locally all the same, and never throws to the publisher', async () => {
    const transport = fakeTransport(true)
    const bus = busOverTransport('fake', transport)
    const warnings: string[] = []
    await bus.start({ info: () => {}, warn: (_o, msg) => warnings.push(msg) })
    const got: ChangeEvent[] = []
    bus.subscribe({ change: (e) => got.push(e), resync: () => {} })
    for (let i = 0; i < 3; i++) bus.publish({ kind: 'notes', userId: 'u', publishedAt: i })
    await settle()
    assert.equal(got.length, 3)
    assert.equal(warnings.length, 1)
    await bus.close()
  })
})

describe('the publishing Store', () => {
  const published: ChangeEvent[] = []
  const recorder: ChangeBus = {
    driver: 'test',
    publish: (e) => published.push(e),
    subscribe: () => () => {},
    close: async () => {},
  }
  const limits = { ...DEFAULT_LIMITS, keepRevisions: 0 }
  const store = publishingStore(
    cachedStore(openSqliteStore({ dataDir: ':memory:', limits }), { listingBytes: 0 }),
    recorder,
  )
  after(() => store.close())
  const kinds = () => published.splice(0).map((e) => `${e.kind}:${e.userId}`)

  it('publishes notes for each note write that committed, and nothing for reads or writes that changed nothing', async () => {
    const user = makeUser()
    await store.createUser(user)
    assert.deepEqual(kinds(), [])
    const note = makeNote(user._id)
    assert.equal(await store.insertNote(note), true)
    assert.deepEqual(kinds(), [`notes:${user._id}`])
    const terms = { revisionId: makeUser()._id }
    const edited = await store.updateNote(user._id, note._id, { title: 'x' }, new Date().toISOString(), terms)
    assert.ok(edited && 'note' in edited)
    assert.deepEqual(kinds(), [`notes:${user._id}`])
    // If-Match that no longer holds: nothing changed.
    const conflict = await store.updateNote(user._id, note._id, { title: 'y' }, new Date().toISOString(), {
      ...terms,
      expected: ['1999-01-01T00:00:00.000Z'],
    })
    assert.ok(conflict && 'conflict' in conflict)
    await store.updateNote(user._id, makeUser()._id, { title: 'y' }, new Date().toISOString(), terms)
    await store.findNote(user._id, note._id)
    await store.listNotesJson(user._id)
    assert.deepEqual(kinds(), [])
    await store.deleteNote(user._id, note._id, { trashedOn: new Date().toISOString() })
    await store.restoreNote(user._id, note._id, new Date().toISOString())
    assert.deepEqual(kinds(), [`notes:${user._id}`, `notes:${user._id}`])
  })

  it('publishes sessions for each write that may end a session', async () => {
    const user = makeUser()
    const now = new Date().toISOString()
    const session = { _id: makeUser()._id, userId: user._id, createdOn: now, lastUsedOn: now, client: '' }
    await store.createUser(user)
    await store.createSession(session, { createdBefore: '2000-01-01T00:00:00.000Z', keepMost: 10 })
    assert.deepEqual(kinds(), [`sessions:${user._id}`])
    await store.updateUser(user._id, { fullName: 'renamed' })
    assert.deepEqual(kinds(), [], 'a rename ends no session')
    await store.updateUser(user._id, {}, { notBefore: now, endSessions: true })
    assert.deepEqual(kinds(), [`sessions:${user._id}`])
    assert.equal(await store.deleteSession(user._id, session._id), false)
    assert.deepEqual(kinds(), [], 'no such session any more')
    assert.equal(await store.deleteUser(user._id), true)
    assert.deepEqual(kinds(), [`sessions:${user._id}`])
  })

  it('never fails a committed write for a bus that throws, and publishes nothing for a write that failed', async () => {
    const throwing: ChangeBus = { ...recorder, publish: () => assert.fail('the bus is broken') }
    const driver = openSqliteStore({ dataDir: ':memory:' })
    const broken = publishingStore(driver, throwing)
    try {
      const user = makeUser()
      await broken.createUser(user)
      assert.equal(await broken.insertNote(makeNote(user._id)), true)
      const failing = publishingStore({ ...driver, insertNote: () => Promise.reject(new Error('disk')) }, recorder)
      await assert.rejects(failing.insertNote(makeNote(user._id)), /disk/)
      assert.deepEqual(kinds(), [])
    } finally {
      await broken.close()
    }
  })
})

describe('a fresh session lookup', () => {
  it('reads the database past what the cache layer keeps', async () => {
    const driver = openSqliteStore({ dataDir: ':memory:' })
    const store = cachedStore(driver, { listingBytes: 0 })
    try {
      const user = makeUser()
      const now = new Date().toISOString()
      const session = { _id: makeUser()._id, userId: user._id, createdOn: now, lastUsedOn: now, client: '' }
      await store.createUser(user, session)
      for (let i = 0; i < 2; i++) assert.equal((await store.findSession(session._id))?.user._id, user._id)
      // Ended behind the cache layer's back, as another instance would.
      assert.equal(await driver.deleteSession(user._id, session._id), true)
      assert.equal(await store.findSession(session._id, true), undefined)
      assert.equal(await store.findSession(session._id), undefined)
      assert.equal(await driver.deleteUser(user._id), true)
      assert.equal(await store.findUserById(user._id, true), undefined)
    } finally {
      await store.close()
    }
  })
})
