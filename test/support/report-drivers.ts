// Preloaded (`--import`) into a CLI child by lazy-drivers.test.ts: when the process exits, it
// writes which of the optional drivers (`pg`, `ioredis`) were loaded, as one line on stderr.
// Both are CommonJS packages, so whatever imported them, they are in the require cache.
import { createRequire } from 'node:module'

const cache = createRequire(import.meta.url).cache

process.on('exit', () => {
  const loaded = new Set<string>()
  for (const file of Object.keys(cache)) {
    const match = /[\\/]node_modules[\\/](pg|ioredis)[\\/]/.exec(file)
    if (match?.[1]) loaded.add(match[1])
  }
  process.stderr.write(`drivers loaded: ${JSON.stringify([...loaded].sort())}\n`)
})
