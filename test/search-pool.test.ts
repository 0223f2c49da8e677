// The search pool (src/services/search-pool.ts) on its own: which notes match, the 400s of a
// refused pattern and of the budget, the 503 of a full pool, and that a search's place is given
// back only once its thread has stopped. HTTP answers: search-isolation.test.ts.
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { ContractError } from '../src/errors.js'
import RE2 from 're2'
import { SEARCH_BUSY, SearchPool } from '../src/services/search-pool.js'
import type { MatchResult, MatchTask } from '../src/services/search-task.js'
import match from '../src/services/search-worker.js'
import { eventually } from './support/eventually.js'

/**
 * The largest content the limits allow, and an accepted pattern (search-cost.ts) whose one RE2
 * call over it takes 0.2-0.4 s here: as costly a call as the cost bound lets through.
 */
const LARGEST = '漢字'.repeat(50_000)
const COSTLY_ACCEPTED = '\\pL{19}!'

describe('search pool', () => {
  const pool = new SearchPool({ threads: 1, queue: 4, timeoutMs: 300 })
  /** No queue: one search under way fills it; a budget shorter than one RE2 call of COSTLY_ACCEPTED. */
  const single = new SearchPool({ threads: 1, queue: 0, timeoutMs: 100 })
  /** A budget of several RE2 calls of COSTLY_ACCEPTED over LARGEST. */
  const LONGER_MS = 1500
  const longer = new SearchPool({ threads: 1, queue: 0, timeoutMs: LONGER_MS })
  after(() => Promise.all([pool.close(), single.close(), longer.close()]))

  const refusal = (status: number, message: string | RegExp) => (err: unknown) =>
    err instanceof ContractError &&
    err.statusCode === status &&
    (typeof message === 'string' ? err.message === message : message.test(err.message))

  it('answers which notes match in title or content, case-insensitively, by code point', async () => {
    await pool.started()
    const search = pool.start('straße|^é.$')
    try {
      const notes = [
        { title: 'STRASSE', content: 'no' },
        { title: 'x', content: 'Die STRAßE' },
        { title: 'éz', content: '' },
        { title: 'Straße', content: 'Straße' },
      ]
      assert.deepEqual(await search.matchPage(notes), [1, 2, 3])
      assert.deepEqual(search.plan, undefined) // one side of the alternative requires no literal
    } finally {
      search.end()
    }
    const literal = pool.start('Grocery list')
    assert.deepEqual(literal.plan, { literal: 'grocery list' })
    literal.end()
  })

  it('refuses a pattern RE2 does not accept with 400, even on an empty page', async () => {
    for (const pattern of ['(?=a)', '(a)\\1', '(']) {
      const search = pool.start(pattern)
      await assert.rejects(search.matchPage([]), refusal(400, /^query is not a supported regular expression: /))
      search.end()
      await eventually('the place given back', async () => pool.underWay === 0)
    }
  })

  /**
   * Runs `attempt` until its search reaches the thread within its budget: on a loaded machine a page may still wait
   * for the thread at its deadline, which is the busy 503, not the budget's 400 the test is about.
   */
  async function onTheThread(attempt: () => Promise<'ran' | 'waited'>): Promise<void> {
    for (let tries = 0; tries < 8; tries++) if ((await attempt()) === 'ran') return
    assert.fail('in eight tries, the search never reached the thread within its budget')
  }

  it('answers 400 at the budget, and holds the place until the thread has stopped', async () => {
    const pool = single
    await pool.started()
    await onTheThread(async () => {
      const search = pool.start(COSTLY_ACCEPTED)
      const answer = await search
        .matchPage([
          { title: 'x', content: LARGEST },
          { title: 'y', content: LARGEST },
        ])
        .then(
          () => assert.fail('answered within a budget shorter than one RE2 call'),
          (err: unknown) => err,
        )
      search.end()
      if (refusal(503, SEARCH_BUSY)(answer)) {
        await eventually('the place given back', async () => pool.underWay === 0, 60_000)
        return 'waited'
      }
      assert.ok(refusal(400, 'Search took longer than 100 ms: use a simpler pattern')(answer), String(answer))
      // Answered at the budget, while the thread is still inside its first RE2 call over a content (it gives the
      // place back when the call returns): the queue is 0, so another search is refused meanwhile.
      assert.equal(pool.underWay, 1)
      const refused = (() => {
        try {
          pool.start('b')
        } catch (err) {
          return err
        }
      })()
      assert.ok(refusal(503, SEARCH_BUSY)(refused))
      assert.deepEqual((refused as ContractError).headers, { 'retry-after': '1' })
      await eventually('the place given back once RE2 returns', async () => pool.underWay === 0, 60_000)
      return 'ran'
    })
    const next = pool.start('b')
    assert.deepEqual(await next.matchPage([{ title: 'abc', content: '' }]), [0])
    next.end()
  })

  it("stops a page read ahead at the search's deadline too: it never starts on the thread", async () => {
    const pool = longer
    await pool.started()
    const page = () => Array.from({ length: 16 }, (_, i) => ({ title: `t${i}`, content: LARGEST }))
    await onTheThread(async () => {
      const search = pool.start(COSTLY_ACCEPTED)
      // As search-chunks.ts does: the next page is sent while the first is being matched.
      const first = search.matchPage(page()).then(
        () => assert.fail('sixteen costly calls answered within the budget'),
        (err: unknown) => err,
      )
      const second = search.matchPage(page()).then(
        () => assert.fail('the page read ahead was answered'),
        (err: unknown) => err,
      )
      const answer = await first
      search.end()
      await eventually('the place given back', async () => pool.underWay === 0, 60_000)
      if (refusal(503, SEARCH_BUSY)(answer)) return 'waited'
      assert.ok(refusal(400, `Search took longer than ${LONGER_MS} ms: use a simpler pattern`)(answer), String(answer))
      // The second page carries the search's one deadline, so the thread takes it only after that deadline, and
      // then stops before any RE2 call (the worker's checks are tested below): its answer is the 503 of a task no
      // thread had started at the deadline, and the search is answered by the first page.
      assert.ok(refusal(503, SEARCH_BUSY)(await second))
      return 'ran'
    })
  })
})

describe('the search thread (search-worker.ts, run here to count its RE2 calls)', () => {
  /** The start time of each RE2 call on this thread while `run` runs. */
  function callTimes(run: () => void): number[] {
    const times: number[] = []
    const prototype = RE2.prototype as unknown as { test: (text: string) => boolean }
    const test = prototype.test
    prototype.test = function (this: unknown, text: string) {
      times.push(Date.now())
      return test.call(this, text)
    }
    try {
      run()
    } finally {
      prototype.test = test
    }
    return times
  }
  const task = (deadline: number): MatchTask => ({
    pattern: COSTLY_ACCEPTED,
    texts: ['x', LARGEST, 'y', LARGEST, 'z', LARGEST],
    control: new Int32Array(new SharedArrayBuffer(4)),
    deadline,
  })

  it('starts no RE2 call after the deadline: the one in progress ends the task', () => {
    // A deadline within the first call over a content, whatever the machine's speed: the calls before it are cheap.
    const deadline = Date.now() + 20
    let result: MatchResult | undefined
    const times = callTimes(() => (result = match(task(deadline))))
    assert.deepEqual(result, { stopped: true })
    assert.ok(times.length < 6, `${times.length} calls: the task ran to its end`)
    for (const at of times) assert.ok(at < deadline, 'a call started after the deadline')
  })

  it('makes no RE2 call at all for a page taken after its deadline', () => {
    let result: MatchResult | undefined
    const times = callTimes(() => (result = match(task(Date.now() - 1))))
    assert.deepEqual(result, { stopped: true })
    assert.deepEqual(times, [])
  })
})
