// Does a search pattern that costs RE2 time still slow everybody else down? Starts
// the built service (SQLite, in a temporary directory), gives one user NOTES notes as large as the
// limits allow (title 1 000 and content 100 000 characters of '漢字', or with --text a of
// 'a' × 99 990 + '!'), and measures GET /healthz, one request after another, first with no search
// running, then while ATTACKERS clients keep searching the attack pattern over those notes (by
// default `\pL{19}!`, the costliest per call of what the cost bound accepts: docs/search.md);
// idle and attack phases alternate, ROUNDS times, and the report gives p50 / p99 of each and
// their ratio (attack / idle). Then how long the search thread stays busy after an attack search
// has been answered (one attack, then an ordinary search repeated until it is served). Then the ordinary search speed:
// users with 1 000 and 10 000 notes like the bench's (one in ten mentions groceries, one in twenty
// a meeting time), the bench's two queries, one request at a time (p50 / p99, listing cache off as
// in the bench's growth phase, where the search targets are: p50 under 5 and 40 ms).
//
// Run: npm run build:bench && node dist-bench/bench/search-isolation.js [--build DIR] [--only isolation|ordinary]
//      [--seconds S] [--rounds N] [--notes N] [--attackers N] [--attack PATTERN] [--text cjk|a]
// --build: the root of another checkout, built, whose service and store are measured instead
// (e.g. the code before the cost bound, with --attack '(.*a){1000}' --text a; code that runs
// RE2 on the main thread, with --only ordinary: its isolation phase does not finish).
// Service settings (SEARCH_THREADS, SEARCH_TIMEOUT_MS, ...) pass through from the environment.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  options: {
    build: { type: 'string', default: fileURLToPath(new URL('../..', import.meta.url)) },
    only: { type: 'string' },
    seconds: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '2' },
    notes: { type: 'string', default: '30' },
    attackers: { type: 'string', default: '2' },
    attack: { type: 'string', default: '\\pL{19}!' },
    text: { type: 'string', default: 'cjk' },
  },
})
const BUILD = resolve(values.build)
const SECONDS = Number(values.seconds)
const ATTACK = values.attack
const LARGEST =
  values.text === 'a'
    ? { title: 'a'.repeat(999) + '!', content: 'a'.repeat(99_990) + '!' }
    : { title: '漢字'.repeat(500), content: '漢字'.repeat(50_000) }
const SETTINGS = ['SEARCH_THREADS', 'SEARCH_QUEUE', 'SEARCH_TIMEOUT_MS', 'NODE_OPTIONS']

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? NaN
const ms = (x: number) => x.toFixed(x < 10 ? 2 : 0)

async function startService(dataDir: string): Promise<{ url: string; child: ChildProcess }> {
  const port = 20_000 + Math.floor(Math.random() * 20_000)
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    LISTING_CACHE_MB: '0',
  }
  for (const name of SETTINGS) if (process.env[name] !== undefined) env[name] = process.env[name]
  const child = spawn(join(BUILD, 'bin/notes-service'), ['serve'], { env, stdio: ['ignore', 'inherit', 'inherit'] })
  process.once('exit', () => child.kill('SIGKILL'))
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; i < 200; i++) {
    if ((await fetch(`${url}/healthz`).catch(() => undefined))?.ok) return { url, child }
    await sleep(50)
  }
  throw new Error('the service did not start')
}

async function call(
  url: string,
  path: string,
  token?: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {}
  if (body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(url + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { status: res.status, json: (await res.json()) as Record<string, unknown> }
}

async function account(url: string, name: string): Promise<{ token: string; id: string }> {
  const { json } = await call(url, '/create-account', undefined, {
    fullName: name,
    email: `${name}-${Date.now()}@bench.example`,
    password: 'correct horse battery staple',
  })
  return { token: json.accessToken as string, id: (json.user as { _id: string })._id }
}

/** Runs `work` in a loop on `clients` clients for `seconds`; returns each call's milliseconds and status. */
async function loop(clients: number, seconds: number, work: () => Promise<number>): Promise<Array<[number, number]>> {
  const end = Date.now() + seconds * 1000
  const done: Array<[number, number]> = []
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (Date.now() < end) {
        const t = performance.now()
        const status = await work().catch(() => -1)
        done.push([performance.now() - t, status])
      }
    }),
  )
  return done
}

const healthz = (url: string) => async () => (await fetch(`${url}/healthz`)).status

/** A search thread may still be inside its last RE2 call: waits until this search is served. */
async function untilServed(search: () => Promise<number>): Promise<void> {
  while ((await search()) !== 200) await sleep(100)
}
const searching = (url: string, token: string, query: string) => async () => {
  const res = await fetch(`${url}/search-notes?query=${encodeURIComponent(query)}`, {
    headers: { authorization: `Bearer ${token}` },
  })
  await res.arrayBuffer()
  return res.status
}

async function isolation(url: string): Promise<void> {
  const attacker = await account(url, 'attacker')
  const reader = await account(url, 'reader')
  for (let i = 0; i < Number(values.notes); i++) await call(url, '/add-note', attacker.token, LARGEST)
  await call(url, '/add-note', reader.token, { title: 'Groceries', content: 'milk' })
  const idle: number[] = []
  const attacked: number[] = []
  const answers: Array<[number, number]> = []
  for (let round = 0; round < Number(values.rounds); round++) {
    await untilServed(searching(url, reader.token, 'groceries'))
    idle.push(...(await loop(1, SECONDS, healthz(url))).map(([t]) => t))
    const attack = loop(Number(values.attackers), SECONDS, searching(url, attacker.token, ATTACK))
    attacked.push(...(await loop(1, SECONDS, healthz(url))).map(([t]) => t))
    answers.push(...(await attack))
  }
  const statuses = new Map<number, number>()
  for (const [, s] of answers) statuses.set(s, (statuses.get(s) ?? 0) + 1)
  console.log(
    `\n/healthz, one request at a time, ${values.rounds} × ${SECONDS} s per phase; attack: ${values.attackers} clients searching \`${ATTACK}\` over ${values.notes} notes of 100 000 characters (${values.text})\n`,
  )
  console.log('| phase | /healthz requests | p50 ms | p99 ms | max ms |\n|---|---:|---:|---:|---:|')
  for (const [name, xs] of [
    ['no search running', idle],
    ['under attack', attacked],
  ] as const) {
    console.log(`| ${name} | ${xs.length} | ${ms(pct(xs, 0.5))} | ${ms(pct(xs, 0.99))} | ${ms(Math.max(...xs))} |`)
  }
  console.log(
    `| ratio (attack / idle) | | ${(pct(attacked, 0.5) / pct(idle, 0.5)).toFixed(2)} | ${(pct(attacked, 0.99) / pct(idle, 0.99)).toFixed(2)} | |`,
  )
  const times = answers.map(([t]) => t)
  console.log(
    `\nattack searches: ${[...statuses].map(([s, n]) => `${n} × ${s}`).join(', ')}; answered in p50 ${ms(pct(times, 0.5))} ms, max ${ms(Math.max(...times))} ms`,
  )
  await heldPastAnswer(url, attacker.token, reader.token)
}

/**
 * How long the search threads stay busy once an attack search has been answered: one attack
 * search, then an ordinary search repeated (every 10 ms) until it is served; with SEARCH_THREADS
 * threads, SEARCH_THREADS attacks at once. What the cost bound limits to one RE2 call.
 */
async function heldPastAnswer(url: string, attackerToken: string, readerToken: string): Promise<void> {
  const held: number[] = []
  const answeredIn: number[] = []
  for (let round = 0; round < 10; round++) {
    await untilServed(searching(url, readerToken, 'groceries'))
    const started = performance.now()
    const status = await searching(url, attackerToken, ATTACK)()
    const answered = performance.now()
    answeredIn.push(answered - started)
    if (status === 200) continue
    while ((await searching(url, readerToken, 'groceries')()) !== 200) await sleep(10)
    held.push(performance.now() - answered)
  }
  console.log(
    `\none attack search at a time (10 rounds): answered in p50 ${ms(pct(answeredIn, 0.5))} ms, max ${ms(Math.max(...answeredIn))} ms; an ordinary search served after it in p50 ${ms(pct(held, 0.5))} ms, max ${ms(Math.max(...held))} ms (the thread's last RE2 call)`,
  )
}

/** Notes shaped like the bench's (bench/seed.ts): ~24 words, one in ten groceries, one in twenty a meeting. */
function* benchLikeNotes(userId: string, count: number) {
  const words =
    'alpha budget call draft email family garden holiday idea journal kitchen ledger market notes office plan quarter review school travel update visit weekend yoga'.split(
      ' ',
    )
  const sentence = (i: number, n: number) =>
    Array.from({ length: n }, (_, k) => words[(i * 7 + k * 13) % words.length]).join(' ')
  for (let i = 0; i < count; i++) {
    const at = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString()
    let content = `${sentence(i, 12)}. ${sentence(i + 1, 10)}.`
    if (i % 10 === 3) content += ' Grocery list: milk, eggs, bread.'
    if (i % 20 === 7) content += ` Meeting at ${1 + (i % 12)}pm with the team.`
    // Ids shaped like the service's (24 hex digits): the owner's first 16, then the note's number.
    yield {
      _id: `${userId.slice(0, 16)}${i.toString(16).padStart(8, '0')}`,
      title: `Note ${i}: ${sentence(i, 3)}`,
      content,
      tags: [],
      isPinned: i % 25 === 0,
      userId,
      createdOn: at,
      updatedOn: at,
    }
  }
}

async function ordinary(url: string, dataDir: string): Promise<void> {
  const { openSqliteStore } = (await import(pathToFileURL(join(BUILD, 'dist/src/store/sqlite/index.js')).href)) as {
    openSqliteStore: (o: { dataDir: string }) => { importNotes(n: unknown[]): Promise<unknown>; close(): Promise<void> }
  }
  console.log(
    '\nordinary search, one request at a time (listing cache off)\n\n| notes | query | requests | p50 ms | p99 ms |\n|---:|---|---:|---:|---:|',
  )
  for (const count of [1000, 10_000]) {
    const user = await account(url, `searcher-${count}`)
    // Written by a second connection while the service runs: SQLite allows it (WAL).
    const store = openSqliteStore({ dataDir })
    await store.importNotes([...benchLikeNotes(user.id, count)])
    await store.close()
    for (const query of ['grocery', 'meet(ing)? at [0-9]{1,2}(am|pm)']) {
      await untilServed(searching(url, user.token, query))
      await loop(1, 1, searching(url, user.token, query))
      const runs = await loop(1, SECONDS, searching(url, user.token, query))
      if (runs.some(([, s]) => s !== 200))
        throw new Error(`${query}: statuses ${[...new Set(runs.map(([, s]) => s))].join(', ')}`)
      const times = runs.map(([t]) => t)
      console.log(`| ${count} | \`${query}\` | ${times.length} | ${ms(pct(times, 0.5))} | ${ms(pct(times, 0.99))} |`)
    }
  }
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'search-isolation-'))
  const { url, child } = await startService(dataDir)
  try {
    console.log(
      `build: ${BUILD}; ${
        SETTINGS.filter((s) => process.env[s])
          .map((s) => `${s}=${process.env[s]}`)
          .join(' ') || 'default settings'
      }`,
    )
    if (values.only !== 'ordinary') await isolation(url)
    if (values.only !== 'isolation') await ordinary(url, dataDir)
  } finally {
    child.kill('SIGKILL')
    rmSync(dataDir, { recursive: true, force: true })
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`search-isolation failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exitCode = 1
})
