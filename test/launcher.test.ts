// bin/notes-service (what `npm start` and the package's bin run) starts the built CLI in its own
// process with glibc's malloc limited to one arena (README, "Memory"), and leaves a value the
// environment already has alone.
import assert from 'node:assert/strict'
import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { delimiter, dirname } from 'node:path'
import { before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { freePort } from './support/cli.js'
import { tempDir } from './support/temp.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const LAUNCHER = `${ROOT}bin/notes-service`

async function startLauncher(env: Record<string, string>) {
  const port = await freePort()
  const data = tempDir()
  const child = spawn(LAUNCHER, ['serve'], {
    env: { PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: data.path, LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; ; i++) {
    try {
      const res = await fetch(`${url}/healthz`)
      if (res.status === 200) break
    } catch {
      // not listening yet
    }
    if (i > 200 || child.exitCode !== null) throw new Error('the launched service did not answer')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const environ = readFileSync(`/proc/${child.pid}/environ`, 'utf8').split('\0')
  const cmdline = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0')
  const stop = async () => {
    child.kill('SIGTERM')
    const [code] = (await once(child, 'exit')) as [number | null]
    data.remove()
    return code
  }
  return { environ, cmdline, stop }
}

describe('bin/notes-service', { skip: process.platform !== 'linux' && 'reads /proc' }, () => {
  before(() => {
    // The launcher runs the built output: build it, as `npm start` does first.
    execFileSync(process.execPath, [`${ROOT}node_modules/typescript/bin/tsc`, '-p', `${ROOT}tsconfig.build.json`], { stdio: 'inherit' })
  })

  it('serves from its own process (exec) with MALLOC_ARENA_MAX=1, and stops on SIGTERM', async () => {
    const run = await startLauncher({})
    assert.ok(run.environ.includes('MALLOC_ARENA_MAX=1'))
    assert.match(run.cmdline[1] ?? '', /dist\/src\/cli\.js$/) // node itself, not a shell around it
    assert.equal(run.cmdline[2], 'serve')
    assert.equal(await run.stop(), 0)
  })

  it('keeps a MALLOC_ARENA_MAX the environment sets', async () => {
    const run = await startLauncher({ MALLOC_ARENA_MAX: '4' })
    assert.ok(run.environ.includes('MALLOC_ARENA_MAX=4'))
    assert.equal(await run.stop(), 0)
  })
})
