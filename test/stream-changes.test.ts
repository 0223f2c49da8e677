// GET /stream-changes over a real socket, on both stores (docs/sync.md, "Live updates"): the events a client sees for
// each kind of write, resuming with Last-Event-ID, the 410 of an unusable cursor, the limits, the slow reader, the end of
// a stream with its session (each of the four ways), the heartbeat's re-read, graceful shutdown and the headers.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type Account, type Harness, type NoteBody, addNote, register, startHarness } from './support/harness.js'
import { type SseStream, baseOf, changeOf, openStream } from './support/sse.js'
import { makeNote } from './support/store-contract.js'
import { openTestStore, storeKinds } from './support/stores.js'
import type { StreamSettings } from '../src/services/streams.js'
import { defaultConfig } from '../src/config.js'

const EXPIRED = { error: true, message: 'Cursor expired: list all notes again' }

/** Generous: the requirement is 1 s, and a loaded machine may take a little of it before the clock starts. */
const SESSION_END_BOUND_MS = 1000

const streamSettings = (overrides: Partial<StreamSettings> = {}): StreamSettings => ({
  ...defaultConfig.streams,
  ...overrides,
})

for (const storeKind of storeKinds()) {
  describe(`GET /stream-changes (${storeKind})`, () => {
    let h: Harness
    let base: string
    const open: SseStream[] = []
    const stream = async (options: Parameters<typeof openStream>[1]) => {
      const s = await openStream(base, options)
      open.push(s)
      return s
    }
    before(async () => {
      h = await startHarness('http', { storeKind })
      base = baseOf(h.app)
    })
    after(async () => {
      for (const s of open) s.close()
      await h.close()
    })
    const req = (method: string, path: string, token: string, body?: unknown) =>
      h.client.request(method, path, { token, ...(body === undefined ? {} : { body }) })

    it('answers text/event-stream with the headers a proxy and a browser need, and a retry hint', async () => {
      const a = await register(h.client)
      const s = await stream({ token: a.token, headers: { origin: 'https://app.example' } })
      assert.equal(s.status, 200)
      assert.match(String(s.headers['content-type']), /^text\/event-stream/)
      assert.match(String(s.headers['cache-control']), /no-cache/)
      assert.equal(s.headers['x-accel-buffering'], 'no')
      // The API's CORS answer, carried over although the reply is hijacked.
      assert.equal(s.headers['access-control-allow-origin'], '*')
      const note = await addNote(h.client, a.token, { title: 'first', content: 'c' })
      await s.waitForEvents(1)
      assert.equal(s.retry, defaultConfig.streams.retryMs)
      assert.deepEqual(changeOf(s.events[0]!), { noteId: note._id, note })
    })

    it('sends an event for each add, edit, pin, delete and restore, with the note as the feed has it', async () => {
      const a = await register(h.client)
      const s = await stream({ token: a.token })
      const note = await addNote(h.client, a.token, { title: 't', content: 'c' })
      const edited = (await req('PUT', `/edit-note/${note._id}`, a.token, { title: 'edited' })).json as {
        note: NoteBody
      }
      const pinned = (await req('PUT', `/update-note-pinned/${note._id}`, a.token, { isPinned: true })).json as {
        note: NoteBody
      }
      assert.equal((await req('DELETE', `/delete-note/${note._id}`, a.token)).status, 200)
      const restored = (await req('PUT', `/restore-note/${note._id}`, a.token)).json as { note: NoteBody }
      // Events may coalesce (the feed keeps each note's latest change), but the last one is the note as it is now.
      const last = async () => {
        await s.waitForEvents(1)
        return changeOf(s.events.at(-1)!)
      }
      await eventually(async () => JSON.stringify((await last()).note) === JSON.stringify(restored.note))
      const seen = s.events.map(changeOf)
      assert.ok(seen.every((c) => c.noteId === note._id))
      // Each state is sent unless a later change replaced it before the stream read it.
      for (const state of seen) {
        assert.ok(
          [note, edited.note, pinned.note, null, restored.note].some(
            (n) => JSON.stringify(n) === JSON.stringify(state.note),
          ),
        )
      }
      // Each event's id is a cursor /get-changes accepts: nothing after the last one.
      const after = (await req('GET', `/get-changes?since=${encodeURIComponent(s.lastEventId()!)}`, a.token)).json as {
        changes: unknown[]
      }
      assert.deepEqual(after.changes, [])
    })

    it('sends one event per change, in commit order, when each is read before the next', async () => {
      const a = await register(h.client)
      const s = await stream({ token: a.token })
      const note = await addNote(h.client, a.token, { title: 't', content: 'c' })
      await s.waitForEvents(1)
      await req('PUT', `/edit-note/${note._id}`, a.token, { title: 'edited' })
      await s.waitForEvents(2)
      await req('DELETE', `/delete-note/${note._id}`, a.token)
      await s.waitForEvents(3)
      assert.deepEqual(
        s.events.map((e) => e.event),
        ['change', 'change', 'change'],
      )
      assert.deepEqual(
        s.events.map((e) => (changeOf(e).note as { title?: string } | null)?.title ?? null),
        ['t', 'edited', null],
      )
    })

    it('starts at the cursor given by since, and Last-Event-ID resumes without missing or repeating a change', async () => {
      const a = await register(h.client)
      const before = await addNote(h.client, a.token, { title: 'before', content: 'c' })
      const listed = (await req('GET', '/get-changes', a.token)).json as { cursor: string }
      const first = await addNote(h.client, a.token, { title: 'one', content: 'c' })
      const s1 = await stream({ token: a.token, since: listed.cursor })
      await s1.waitForEvents(1)
      assert.deepEqual(
        s1.events.map((e) => changeOf(e).noteId),
        [first._id],
      )
      s1.close()
      // Written while no stream is open.
      const missed = [
        await addNote(h.client, a.token, { title: 'two', content: 'c' }),
        await addNote(h.client, a.token, { title: 'three', content: 'c' }),
      ]
      // Last-Event-ID wins over since (EventSource sends it with the URL it first opened).
      const s2 = await stream({ token: a.token, since: listed.cursor, lastEventId: s1.lastEventId()! })
      await s2.waitForEvents(2)
      assert.deepEqual(
        s2.events.map((e) => changeOf(e).noteId),
        missed.map((n) => n._id),
      )
      const later = await addNote(h.client, a.token, { title: 'four', content: 'c' })
      await s2.waitForEvents(3)
      assert.equal(changeOf(s2.events[2]!).noteId, later._id)
      assert.ok(!s2.events.some((e) => changeOf(e).noteId === before._id))
    })

    it('without a cursor starts from now: only changes after it opened', async () => {
      const a = await register(h.client)
      await addNote(h.client, a.token, { title: 'old', content: 'c' })
      const s = await stream({ token: a.token })
      const fresh = await addNote(h.client, a.token, { title: 'new', content: 'c' })
      await s.waitForEvents(1)
      await new Promise((resolve) => setTimeout(resolve, 100))
      assert.deepEqual(
        s.events.map((e) => changeOf(e).noteId),
        [fresh._id],
      )
    })

    it('answers 410 before any event for a cursor that is not one, or is another account’s', async () => {
      const a = await register(h.client)
      const b = await register(h.client)
      const theirs = ((await req('GET', '/get-changes', b.token)).json as { cursor: string }).cursor
      for (const options of [{ since: 'not-a-cursor' }, { lastEventId: 'zz.1' }, { since: theirs }]) {
        const s = await stream({ token: a.token, ...options })
        await s.ended
        assert.equal(s.status, 410)
        assert.deepEqual(s.body, EXPIRED)
      }
    })

    it('answers the bare 401 without a token, and takes none from the URL', async () => {
      const a = await register(h.client)
      const none = await stream({})
      await none.ended
      assert.equal(none.status, 401)
      for (const param of ['token', 'access_token', 'accessToken', 'authorization']) {
        const s = await stream({ query: { [param]: a.token } })
        await s.ended
        assert.equal(s.status, 401, param)
      }
    })

    it('ends the stream within 1 s of a logout, a sign-out everywhere, a password change or an account deletion', async () => {
      const endings: Array<[string, (a: Account, other: string) => Promise<unknown>]> = [
        ['logout', (a) => req('POST', '/logout', a.token)],
        ['logout-everywhere', (_a, other) => req('POST', '/logout-everywhere', other)],
        [
          'change-password',
          (a, other) =>
            req('PUT', '/change-password', other, {
              currentPassword: a.password,
              newPassword: 'another horse battery',
            }),
        ],
        ['delete-account', (a, other) => req('DELETE', '/delete-account', other, { password: a.password })],
      ]
      for (const [name, end] of endings) {
        const a = await register(h.client)
        // A second session of the same account makes the change, where the stream's own session is not the caller's.
        const login = await h.client.request('POST', '/login', { body: { email: a.email, password: a.password } })
        const other = (login.json as { accessToken: string }).accessToken
        const s = await stream({ token: a.token })
        await addNote(h.client, a.token, { title: 't', content: 'c' })
        await s.waitForEvents(1)
        const answered = await end(a, other)
        const start = Date.now()
        assert.equal((answered as { status: number }).status, 200, name)
        assert.equal(await within(s.ended, SESSION_END_BOUND_MS, name), 'end', name)
        assert.ok(Date.now() - start < SESSION_END_BOUND_MS, name)
        // Reconnecting is refused.
        const again = await stream({ token: a.token })
        await again.ended
        assert.equal(again.status, 401, name)
      }
    })

    it('keeps the stream of the session that changed the password', async () => {
      const a = await register(h.client)
      const s = await stream({ token: a.token })
      const changed = await req('PUT', '/change-password', a.token, {
        currentPassword: a.password,
        newPassword: 'another horse battery',
      })
      assert.equal(changed.status, 200)
      const note = await addNote(h.client, a.token, { title: 'still here', content: 'c' })
      await s.waitForEvents(1)
      assert.equal(changeOf(s.events[0]!).noteId, note._id)
    })
  })
}

/** `promise`'s value, or a failure naming `what` after `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([
      promise,
      new Promise<never>(
        (_r, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)),
      ),
    ])
  } finally {
    clearTimeout(timer)
  }
}

async function eventually(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`not within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe('GET /stream-changes: limits, the slow reader, heartbeats and shutdown (sqlite)', () => {
  const open: SseStream[] = []
  after(() => open.forEach((s) => s.close()))
  const harness = async (settings: Partial<StreamSettings>, extra: Parameters<typeof startHarness>[1] = {}) => {
    const h = await startHarness('http', { ...extra, config: { ...extra.config, streams: streamSettings(settings) } })
    return { h, base: baseOf(h.app) }
  }
  const stream = async (base: string, options: Parameters<typeof openStream>[1]) => {
    const s = await openStream(base, options)
    open.push(s)
    return s
  }
  const metric = async (h: Harness, line: RegExp) => {
    const text = (await h.client.request('GET', '/metrics')).text
    const match = text.split('\n').find((l) => line.test(l))
    return match === undefined ? undefined : Number(match.split(' ').at(-1))
  }

  it('refuses a stream past the account limit with 429 and past the instance limit with 503, both with Retry-After', async () => {
    const { h, base } = await harness({ perAccount: 2, perInstance: 3 })
    try {
      const a = await register(h.client)
      const b = await register(h.client)
      const held = [await stream(base, { token: a.token }), await stream(base, { token: a.token })]
      assert.deepEqual(
        held.map((s) => s.status),
        [200, 200],
      )
      const third = await stream(base, { token: a.token })
      await third.ended
      assert.equal(third.status, 429)
      assert.match(String(third.headers['retry-after']), /^\d+$/)
      assert.deepEqual(third.body, {
        error: true,
        message: 'Too many live update streams for this account: close one or try again later',
      })
      assert.equal((await stream(base, { token: b.token })).status, 200)
      const full = await stream(base, { token: b.token })
      await full.ended
      assert.equal(full.status, 503)
      assert.match(String(full.headers['retry-after']), /^\d+$/)
      assert.deepEqual(full.body, {
        error: true,
        message: 'Too many live update streams on this server: try again later',
      })
      // A slot frees when its stream ends.
      held[0]!.close()
      await eventually(async () => (await metric(h, /^live_streams_open /)) === 2)
      assert.equal((await stream(base, { token: a.token })).status, 200)
      assert.equal(await metric(h, /^live_streams_refused_total\{limit="account"\}/), 1)
      assert.equal(await metric(h, /^live_streams_refused_total\{limit="instance"\}/), 1)
    } finally {
      await h.close()
    }
  })

  it('disconnects a reader that never reads once its unsent bytes pass STREAM_BUFFER_BYTES', async () => {
    const { h, base } = await harness({ bufferBytes: 16 * 1024 })
    try {
      const a = await register(h.client)
      const s = await stream(base, { token: a.token, paused: true })
      assert.equal(s.status, 200)
      const content = 'x'.repeat(90_000)
      // The kernel's socket buffers take a few megabytes first; then the stream's own buffer passes the bound.
      for (let i = 0; i < 500 && (await metric(h, /^live_streams_open /)) !== 0; i++) {
        await addNote(h.client, a.token, { title: `n${i}`, content })
      }
      assert.equal(await metric(h, /^live_streams_open /), 0)
      assert.equal(await metric(h, /^live_streams_ended_total\{reason="slow-reader"\}/), 1)
    } finally {
      await h.close()
    }
  })

  it('sends heartbeat comments, and reads the feed at each one: a write that published nothing arrives', async () => {
    const store = await openTestStore('sqlite')
    const { h, base } = await harness({ heartbeatMs: 200 }, { store })
    try {
      const a = await register(h.client)
      const s = await stream(base, { token: a.token })
      await s.waitForComments(1)
      assert.equal(s.comments[0], 'keep-alive')
      // Straight into the store, as the CLI's import writes: no bus event.
      const note = makeNote(a.userId, { title: 'imported' })
      assert.deepEqual(await store.importNotes([note]), ['inserted'])
      await s.waitForEvents(1, 3000)
      assert.equal(changeOf(s.events[0]!).noteId, note._id)
    } finally {
      await h.close()
    }
  })

  it('is not cut by the request or connection timeouts while idle between heartbeats', async () => {
    const { h, base } = await harness(
      { heartbeatMs: 60_000 },
      { config: { requestTimeoutMs: 200, connectionTimeoutMs: 200 } },
    )
    try {
      const a = await register(h.client)
      const s = await stream(base, { token: a.token })
      await new Promise((resolve) => setTimeout(resolve, 1200))
      const note = await addNote(h.client, a.token, { title: 'late', content: 'c' })
      await s.waitForEvents(1)
      assert.equal(changeOf(s.events[0]!).noteId, note._id)
    } finally {
      await h.close()
    }
  })

  it('ends every stream cleanly and at once when the app closes, and counts what it sent', async () => {
    const { h, base } = await harness({})
    const a = await register(h.client)
    const streams = [await stream(base, { token: a.token }), await stream(base, { token: a.token })]
    await addNote(h.client, a.token, { title: 't', content: 'c' })
    await Promise.all(streams.map((s) => s.waitForEvents(1)))
    assert.equal(await metric(h, /^live_streams_open /), 2)
    assert.equal(await metric(h, /^live_stream_events_total /), 2)
    assert.equal(await metric(h, /^live_stream_fanout_lag_seconds_count /), 2)
    const start = Date.now()
    await h.close()
    assert.ok(Date.now() - start < 5000, 'closing waited for the streams')
    assert.deepEqual(await Promise.all(streams.map((s) => s.ended)), ['end', 'end'])
  })
})

describe('GET /stream-changes: what it does not serve (sqlite)', () => {
  it('answers HEAD with 404: a HEAD would hold a slot for a stream with no body', async () => {
    const h = await startHarness('http', { checkResponses: false })
    try {
      const a = await register(h.client)
      assert.equal((await h.client.request('HEAD', '/stream-changes', { token: a.token })).status, 404)
    } finally {
      await h.close()
    }
  })
})
