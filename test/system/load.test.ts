// Load held: a mixed load at 64 connections for 5 seconds against a real child server
// (60 seconds in `npm run test:stress`): no errors, no timeouts, no memory growth after warm-up,
// no leaked file descriptors.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { runLoad } from '../support/scenarios/load.js'
import { storesUnderTest } from '../support/stores.js'

/**
 * Allowed growth of the RSS's troughs after warm-up (LoadResult.rssGrowthMb). Short runs still
 * see the heap and SQLite's page cache settle, so the bound is generous; a leak proportional to
 * requests (thousands per second) exceeds it quickly.
 */
const RSS_GROWTH_LIMIT_MB = 48

for (const store of storesUnderTest()) {
  describe(`load (${store.name})`, () => {
    it('serves a 5-second mixed load at 64 connections without errors, growth or leaked descriptors', async () => {
      const r = await runLoad({ store, connections: 64, durationMs: 5000 })
      assert.deepEqual(r.errorSamples, [])
      assert.equal(r.errors, 0)
      assert.equal(r.timeouts, 0)
      assert.ok(r.requests > 100, `only ${r.requests} requests`)
      const series = r.rssSeriesMb.map(([ms, mb]) => `${ms} ms ${mb}`).join(', ')
      assert.ok(
        r.rssGrowthMb < RSS_GROWTH_LIMIT_MB,
        `RSS troughs grew by ${r.rssGrowthMb} MB after warm-up (RSS MB: ${series})`,
      )
      const allowed = r.fdsBefore + 2 + store.pooledConnections
      assert.ok(
        r.fdsAfter <= allowed,
        `file descriptors: ${r.fdsBefore} before, ${r.fdsAfter} after (at most ${allowed})`,
      )
    })
  })
}
