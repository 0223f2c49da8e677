// Polling for what happens asynchronously, with a deadline.
import assert from 'node:assert/strict'

/** Polls `check` every 10 ms until it holds; fails the test after `ms`. */
export async function eventually(what: string, check: () => Promise<boolean>, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`${what}: not within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
