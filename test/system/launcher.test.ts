// bin/notes-service (what `npm start` and the package's bin run) starts the built CLI in its own
// process with glibc's malloc tuned for argon2id's 19 MiB blocks and V8's heap growth bounded
// (docs/performance.md, "Memory"), and leaves a GLIBC_TUNABLES the environment already has alone.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { startChild } from '../support/child-server.js'
import { tempDir } from '../support/temp.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const LAUNCHER = `${ROOT}bin/notes-service`

/** Runs the launcher with a stand-in `node` first on PATH that prints what it was given. */
function launchStandIn(env: Record<string, string>): { args: string[]; tunables: string } {
  const bin = tempDir()
  try {
    writeFileSync(join(bin.path, 'node'), '#!/bin/sh\nprintf "%s\\n" "GLIBC_TUNABLES=${GLIBC_TUNABLES-unset}" "$@"\n', {
      mode: 0o755,
    })
    const out = execFileSync(LAUNCHER, ['serve', '--workers', '2'], {
      env: { PATH: `${bin.path}${delimiter}${process.env.PATH ?? ''}`, ...env },
      encoding: 'utf8',
    })
    const [tunables, ...args] = out.trimEnd().split('\n')
    return { args, tunables: tunables ?? '' }
  } finally {
    bin.remove()
  }
}

describe('bin/notes-service', { skip: process.platform !== 'linux' && 'reads /proc' }, () => {
  before(() => {
    // The launcher runs the built output: build it, as `npm start` does first.
    execFileSync(process.execPath, [`${ROOT}node_modules/typescript/bin/tsc`, '-p', `${ROOT}tsconfig.build.json`], {
      stdio: 'inherit',
    })
  })

  it('runs node on the built CLI with its arguments, the heap growth bound and the malloc tunables', () => {
    const run = launchStandIn({})
    assert.equal(run.tunables, 'GLIBC_TUNABLES=glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=1048576')
    assert.deepEqual(run.args, [
      '--heap-growing-percent=50',
      `${ROOT}bin/../dist/src/cli.js`,
      'serve',
      '--workers',
      '2',
    ])
  })

  it('keeps the GLIBC_TUNABLES the environment sets', () => {
    assert.equal(
      launchStandIn({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' }).tunables,
      'GLIBC_TUNABLES=glibc.malloc.arena_max=2',
    )
  })

  it('serves from its own process (exec: the pid is node itself), and stops on SIGTERM', async () => {
    const data = tempDir()
    const server = await startChild({ dataDir: data.path, launcher: true })
    try {
      // The real node accepts the V8 option (an unknown one would stop it before it listens).
      const cmdline = readFileSync(`/proc/${server.pid}/cmdline`, 'utf8').split('\0')
      assert.equal(cmdline[1], '--heap-growing-percent=50')
      assert.match(cmdline[2] ?? '', /dist\/src\/cli\.js$/)
      assert.equal(cmdline[3], 'serve')
    } finally {
      assert.equal(await server.stop(), 0)
      data.remove()
    }
  })
})
