// Nothing acknowledged is lost: SIGKILL under write load, restart, compare. The long
// version (20+ kills) runs in `npm run test:stress`.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { runCrashScenario } from '../support/scenarios/crash.js'
import { storesUnderTest } from '../support/stores.js'

for (const store of storesUnderTest()) {
  describe(`crash safety (${store.name})`, () => {
    it('keeps every acknowledged write across 3 SIGKILLs under write load, whole and consistent', async () => {
      const result = await runCrashScenario({ store, kills: 3, writers: 4, minRunMs: 300, maxRunMs: 1200 })
      assert.deepEqual(result.problems, [])
      assert.equal(result.kills, 3)
      assert.ok(result.acknowledgedWrites > 0, 'the load wrote something before the kills')
      assert.ok(result.notesVerified > 0)
    })
  })
}
