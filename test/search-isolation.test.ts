// One search request could freeze the whole server. RE2 is linear in the text, but a
// pattern such as `(.*a){1000}` costs seconds per call over the largest note the limits allow,
// and it ran on the event loop. Now such a pattern is refused before it runs (services/search-cost.ts),
// and what is accepted runs on the search threads, within SEARCH_TIMEOUT_MS
// (services/search-pool.ts). Against a real listening server, on every store: pathological
// patterns over the largest notes while another client keeps asking /healthz, the cost bound's
// 400, the budget's 400, the queue's 503, and a server that keeps serving afterwards. What keeps
// the server serving is checked as a mechanism, not a time: no RE2 call on the server's thread,
// and /healthz answered while a slow search runs. bench/search-isolation.ts measures the figures.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import RE2 from 're2'
import { SEARCH_BUSY } from '../src/services/search-pool.js'
import { eventually } from './support/eventually.js'
import { type Account, type Harness, addNote, register, startHarness } from './support/harness.js'
import { countMainThreadRE2, type RE2Calls } from './support/main-thread-re2.js'
import { storeKinds } from './support/stores.js'

// The budget covers reading the notes too: 4 notes of 100 000 characters on a loaded machine need more than 300 ms.
const BUDGET_MS = 1000
const LARGEST_TITLE = 'a'.repeat(999) + '!'
const LARGEST_CONTENT = 'a'.repeat(99_990) + '!'
/** As large, in characters that take three bytes each in UTF-8 (RE2 reads bytes). */
const LARGEST_CJK = '漢字'.repeat(50_000)
const LARGEST_CJK_TITLE = '漢字'.repeat(500)
/** An accepted pattern whose one call over LARGEST_CJK takes 0.2-0.4 s here (search-cost.ts's worst). */
const COSTLY_ACCEPTED = '\\pL{19}!'
const TOO_COMPLEX = /^query is too complex: its estimated cost is \d+ \(at most 1000\); /

/**
 * Patterns and what they cost over the attacker's notes: refused before they run (seconds to
 * minutes per call without the cost bound), over the budget in all (400), or little (200).
 */
const PATHOLOGICAL: Array<[string, 'refused' | 'slow' | 'fast']> = [
  ['(.*a){1000}', 'refused'], // a large counted repetition of a group: 2-6 s per call
  ['(.*a){20}'.repeat(55).slice(0, 495), 'refused'], // 495 characters, at the limit
  ['(a|aa|aaa|aaaa){1000}', 'refused'],
  ['(.{1,10}){100}!', 'refused'], // 1-3 s per call
  [COSTLY_ACCEPTED, 'slow'], // accepted: 0.2-0.4 s per call over each LARGEST_CJK
  ['((a+)+)+b', 'fast'], // nested quantifiers: RE2 needs no backtracking
  ['(x+x+)+y', 'fast'],
  [`(${alternation(498)})`, 'fast'], // a long alternation, 500 characters
]

/** `w0|w1|w2|...` of exactly `length` characters (the last alternative padded with z). */
function alternation(length: number): string {
  let words = 'w0'
  for (let i = 1; words.length + `|w${i}`.length + 2 <= length; i++) words += `|w${i}`
  return `${words}|${'z'.repeat(length - words.length - 1)}`
}

interface Prober {
  stop(): Promise<{ answeredAt: number[]; failures: number }>
}

/** Another client asking GET /healthz one request after another, noting when each was answered. */
function probeHealth(base: string): Prober {
  let running = true
  const answeredAt: number[] = []
  let failures = 0
  const loop = (async () => {
    while (running) {
      try {
        const res = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(30_000) })
        await res.arrayBuffer()
        if (res.status !== 200) failures++
      } catch {
        failures++
      }
      answeredAt.push(performance.now())
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
  })()
  return {
    async stop() {
      running = false
      await loop
      return { answeredAt, failures }
    },
  }
}

interface Answer {
  status: number
  startedAt: number
  answeredAt: number
  retryAfter: string | null
  body: { error?: boolean; message?: string; notes?: Array<{ title: string }> }
}

async function search(base: string, token: string, query: string): Promise<Answer> {
  const startedAt = performance.now()
  const res = await fetch(`${base}/search-notes?query=${encodeURIComponent(query)}`, {
    headers: { authorization: `Bearer ${token}` },
  })
  const body = (await res.json()) as Answer['body']
  return {
    status: res.status,
    startedAt,
    answeredAt: performance.now(),
    retryAfter: res.headers.get('retry-after'),
    body,
  }
}

for (const storeKind of storeKinds()) {
  describe(`search isolation (http, ${storeKind})`, () => {
    let h: Harness
    let base: string
    let attacker: Account
    let reader: Account
    let re2: RE2Calls
    /** Once the search thread has finished its slow calls, an ordinary search is answered 200. */
    const usable = () =>
      eventually(
        'an ordinary search answered 200',
        async () => (await search(base, reader.token, 'groceries')).status === 200,
        60_000,
      )

    before(async () => {
      h = await startHarness('http', {
        storeKind,
        config: { searchThreads: 1, searchQueue: 4, searchTimeoutMs: BUDGET_MS },
      })
      base = `http://127.0.0.1:${(h.app.server.address() as { port: number }).port}`
      attacker = await register(h.client, 'Attacker')
      reader = await register(h.client, 'Reader')
      for (let i = 0; i < 2; i++)
        await addNote(h.client, attacker.token, { title: LARGEST_TITLE, content: LARGEST_CONTENT })
      // Six, so that the slowest accepted pattern stays slower than the budget, which covers reading them too.
      for (let i = 0; i < 6; i++)
        await addNote(h.client, attacker.token, { title: LARGEST_CJK_TITLE, content: LARGEST_CJK })
      await addNote(h.client, reader.token, { title: 'Groceries', content: 'milk and eggs' })
      await addNote(h.client, reader.token, { title: 'Ideas', content: 'w7 and w42' })
      re2 = countMainThreadRE2()
    })
    after(async () => {
      re2.stop()
      await h.close()
    })

    it('answers pathological patterns over the largest notes within the budget, and /healthz keeps answering', async () => {
      const prober = probeHealth(base)
      const answers: Answer[] = []
      for (const [query] of PATHOLOGICAL) {
        // Each pattern on a free thread (the previous one's last RE2 call may still run). On a loaded machine a
        // search may still wait for the thread past its budget, which is the busy 503: it is asked again.
        let answer: Answer | undefined
        for (let tries = 0; tries < 8 && (answer === undefined || answer.status === 503); tries++) {
          await usable()
          answer = await search(base, attacker.token, query)
        }
        answers.push(answer!)
      }
      const health = await prober.stop()
      for (const [i, answer] of answers.entries()) {
        const [query, cost] = PATHOLOGICAL[i] as [string, string]
        const what = `${query}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`
        if (cost === 'refused') {
          assert.equal(answer.status, 400, what)
          assert.match(answer.body.message ?? '', TOO_COMPLEX, what)
        } else if (cost === 'slow') {
          // Matching stopped at the budget: the answer says so, and /healthz was answered while it ran.
          assert.equal(answer.status, 400, what)
          assert.deepEqual(
            answer.body,
            { error: true, message: `Search took longer than ${BUDGET_MS} ms: use a simpler pattern` },
            what,
          )
          const meanwhile = health.answeredAt.filter((at) => at > answer.startedAt && at < answer.answeredAt).length
          assert.ok(
            meanwhile > 0,
            `no /healthz answered during the ${(answer.answeredAt - answer.startedAt).toFixed(0)} ms of ${what}`,
          )
        } else {
          assert.equal(answer.status, 200, what)
          assert.deepEqual(answer.body.notes, [], what)
        }
      }
      assert.equal(health.failures, 0)
      assert.deepEqual(re2.calls(), [], 'RE2 ran on the thread that serves requests')
    })

    it('refuses a 10 KB pattern, and runs patterns at the 500-character limit', async () => {
      const huge = await search(base, attacker.token, '(.*a){1000}'.repeat(931).slice(0, 10_240))
      assert.equal(huge.status, 400)
      assert.deepEqual(huge.body, { error: true, message: 'query must be at most 500 characters' })
      const words = `(${alternation(498)})`
      assert.equal(words.length, 500)
      const ordinary = await search(base, reader.token, words)
      assert.equal(ordinary.status, 200)
      assert.deepEqual(
        ordinary.body.notes?.map((n) => n.title),
        ['Ideas'],
      )
    })

    it('stays usable after a timed-out search: other requests at once, search once the thread is free', async () => {
      await usable()
      const refused = await search(base, attacker.token, COSTLY_ACCEPTED)
      assert.equal(refused.status, 400)
      assert.match(refused.body.message ?? '', /^Search took longer than \d+ ms: use a simpler pattern$/)
      const listed = await h.client.request('GET', '/get-all-notes', { token: reader.token })
      assert.equal(listed.status, 200)
      await usable()
      const found = await search(base, reader.token, 'GROCERIES|eggs')
      assert.deepEqual(
        found.body.notes?.map((n) => n.title),
        ['Groceries'],
      )
      assert.deepEqual(re2.calls(), [], 'RE2 ran on the thread that serves requests')
    })
  })
}

/** One RE2 call of COSTLY_ACCEPTED over LARGEST_CJK as this machine runs it now (the median of three). */
function costlyCallMs(): number {
  const re = new RE2(COSTLY_ACCEPTED, 'iu')
  const times = [0, 1, 2].map(() => {
    const started = performance.now()
    re.test(LARGEST_CJK)
    return performance.now() - started
  })
  return times.sort((a, b) => a - b)[1] as number
}

/**
 * Half of one slow call, whatever this machine's speed: the thread stays busy past the budget for the other half, so
 * a search sent meanwhile waits out its budget for the thread. A fixed budget near one call's length left no such
 * moment on a machine where the call took about as long as the budget.
 */
const SHORT_BUDGET_MS = Math.max(50, Math.round(costlyCallMs() / 2))
/** The budget in whole seconds, at least one: a loaded machine measures a costly call long, and the budget with it. */
const RETRY_AFTER = String(Math.max(1, Math.ceil(SHORT_BUDGET_MS / 1000)))

for (const storeKind of storeKinds()) {
  describe(`search budget and waiting (http, ${storeKind})`, () => {
    let h: Harness
    let base: string
    let attacker: Account
    let reader: Account
    before(async () => {
      h = await startHarness('http', {
        storeKind,
        config: { searchThreads: 1, searchQueue: 4, searchTimeoutMs: SHORT_BUDGET_MS },
      })
      base = `http://127.0.0.1:${(h.app.server.address() as { port: number }).port}`
      attacker = await register(h.client, 'Attacker')
      reader = await register(h.client, 'Reader')
      // Six, so that the slowest accepted pattern stays slower than the budget, which covers reading them too.
      for (let i = 0; i < 6; i++)
        await addNote(h.client, attacker.token, { title: LARGEST_CJK_TITLE, content: LARGEST_CJK })
      await addNote(h.client, reader.token, { title: 'Groceries', content: 'milk and eggs' })
    })
    after(async () => h.close())

    it('answers 400 within the budget, and a search waiting for the busy thread 503, not 400', async () => {
      // The thread starts with the first search (slower than the budget under tsx on a busy machine).
      await eventually(
        'an ordinary search answered 200',
        async () => (await search(base, reader.token, 'groceries')).status === 200,
        60_000,
      )
      // An ordinary search sent while the slow one's RE2 call (longer than the budget) holds the
      // one thread waits out the budget: its waiting is the server's, not its pattern's, so 503.
      // On a busy machine the timing moves: an ordinary search sent before the slow one reached
      // the thread runs first (200), and one that waits less than the budget for the thread gets
      // it (200) once the slow call returns. So ordinary searches are sent until one meets the
      // busy thread, over up to eight slow searches.
      let waiting: Awaited<ReturnType<typeof search>> | undefined
      for (let attempt = 0; attempt < 8 && !waiting; attempt++) {
        await eventually(
          'the thread free again',
          async () => (await search(base, reader.token, 'groceries')).status === 200,
          60_000,
        )
        let settled = false
        const slow = search(base, attacker.token, COSTLY_ACCEPTED).finally(() => (settled = true))
        while (!settled) {
          const answer = await search(base, reader.token, 'groceries')
          // The budget covers reading the notes: on a loaded machine even an ordinary search may pass 100 ms (400).
          const overBudget =
            answer.status === 400 &&
            answer.body.message === `Search took longer than ${SHORT_BUDGET_MS} ms: use a simpler pattern`
          assert.ok(answer.status === 200 || answer.status === 503 || overBudget, JSON.stringify(answer.body))
          if (answer.status === 503) {
            waiting = answer
            break
          }
        }
        const refused = await slow
        // On a loaded machine the slow search itself may not reach the thread within its budget: 503, and another try.
        if (refused.status === 503) continue
        assert.equal(refused.status, 400)
        assert.deepEqual(refused.body, {
          error: true,
          message: `Search took longer than ${SHORT_BUDGET_MS} ms: use a simpler pattern`,
        })
      }
      assert.ok(waiting, 'in eight tries, no ordinary search met the thread busy with a slow one')
      assert.deepEqual(waiting.body, { error: true, message: SEARCH_BUSY })
      assert.equal(waiting.retryAfter, RETRY_AFTER)
    })
  })
}

describe('search queue (http, sqlite)', () => {
  let h: Harness
  let base: string
  let attacker: Account
  before(async () => {
    h = await startHarness('http', { config: { searchThreads: 1, searchQueue: 0, searchTimeoutMs: SHORT_BUDGET_MS } })
    base = `http://127.0.0.1:${(h.app.server.address() as { port: number }).port}`
    attacker = await register(h.client, 'Attacker')
    await addNote(h.client, attacker.token, { title: LARGEST_CJK_TITLE, content: LARGEST_CJK })
  })
  after(async () => h.close())

  it('answers 503 with Retry-After at once when every thread is busy and the queue is full', async () => {
    // The thread starts with the first search (slower than the budget under tsx on a busy machine).
    await eventually(
      'a first search answered 200',
      async () => (await search(base, attacker.token, 'b')).status === 200,
      60_000,
    )
    const running = search(base, attacker.token, COSTLY_ACCEPTED)
    await new Promise((resolve) => setTimeout(resolve, 100))
    const started = performance.now()
    const full = await search(base, attacker.token, 'anything')
    assert.equal(full.status, 503)
    assert.deepEqual(full.body, { error: true, message: SEARCH_BUSY })
    assert.equal(full.retryAfter, RETRY_AFTER)
    assert.ok(performance.now() - started < 1000, 'refused without waiting')
    // 400 at its budget; 503 when a loaded machine started its chunk on the thread only after it.
    assert.ok([400, 503].includes((await running).status))
  })
})
