// The search pool (src/services/search-pool.ts) on its own: which notes match, the 400s of a
// refused pattern and of the budget, the 503 of a full pool, and that a search's place is given
// back only once its thread has stopped. HTTP answers: search-isolation.test.ts.
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { ContractError } from '../src/errors.js'
import { SEARCH_BUSY, SearchPool } from '../src/services/search-pool.js'
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

  it('answers 400 at the budget, and holds the place until the thread has stopped', async () => {
    const pool = single
    await pool.started()
    const search = pool.start(COSTLY_ACCEPTED)
    const started = performance.now()
    await assert.rejects(
      search.matchPage([
        { title: 'x', content: LARGEST },
        { title: 'y', content: LARGEST },
      ]),
      refusal(400, 'Search took longer than 100 ms: use a simpler pattern'),
    )
    assert.ok(performance.now() - started < 1500, 'answered near the budget, not when RE2 returns')
    search.end()
    // The thread is still inside its first RE2 call over a content: the queue is 0, so another
    // search is refused meanwhile.
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
    // It stopped at the check after that call: the second content was never matched.
    assert.ok(
      performance.now() - started < 3000,
      `the thread was free after ${(performance.now() - started).toFixed(0)} ms`,
    )
    const next = pool.start('b')
    assert.deepEqual(await next.matchPage([{ title: 'abc', content: '' }]), [0])
    next.end()
  })

  it("stops a page read ahead at the search's deadline too: the thread is free after the call in progress", async () => {
    const pool = longer
    await pool.started()
    const search = pool.start(COSTLY_ACCEPTED)
    const page = () => Array.from({ length: 16 }, (_, i) => ({ title: `t${i}`, content: LARGEST }))
    const started = performance.now()
    // As search-chunks.ts does: the next page is sent while the first is being matched.
    const first = search.matchPage(page())
    const second = search.matchPage(page())
    second.catch(() => {})
    await assert.rejects(first, refusal(400, `Search took longer than ${LONGER_MS} ms: use a simpler pattern`))
    search.end()
    await eventually('the place given back', async () => pool.underWay === 0, 60_000)
    // Both pages stop at the one deadline: the thread is free after the budget and the rest of the
    // RE2 call in progress (0.2-0.4 s here, about 1 s on a loaded machine). With a budget of its
    // own, the second page would have matched for a whole budget after the first: two budgets at
    // least, whatever the machine's speed, so that is the line between the two.
    const freeMs = performance.now() - started
    assert.ok(freeMs < 2 * LONGER_MS, `the thread was free after ${freeMs.toFixed(0)} ms`)
    // The second page never started: its own answer would be 503, but the search is answered by the first.
    await assert.rejects(second, refusal(503, SEARCH_BUSY))
  })
})
