// The listing version checks' connection (createVersionPool): its setting is in place before the
// first query, and setting it never queues a query behind another on the same client, which
// node-postgres deprecates (pg 9 will refuse it) and warns about in the service's output.
// A file of its own: Node prints each deprecation once per process, and node --test runs every
// file in a process of its own, so nothing run before this test can have used the warning up.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createVersionPool } from '../src/store/postgres/index.js'
import { TEST_DATABASE_URL, serviceAvailable } from './support/services.js'

if (serviceAvailable('postgresql')) {
  describe('postgresql version pool', () => {
    it('sets generic plans when its connection opens, with no query queued behind the SET (no deprecation warning)', async () => {
      const warnings: string[] = []
      const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`)
      process.on('warning', onWarning)
      const pool = createVersionPool({ url: TEST_DATABASE_URL })
      try {
        const { rows } = await pool.query<{ mode: string }>(`SELECT current_setting('plan_cache_mode') AS mode`)
        assert.equal(rows[0]?.mode, 'force_generic_plan')
      } finally {
        await pool.end()
        process.off('warning', onWarning)
      }
      assert.deepEqual(warnings, [])
    })
  })
}
