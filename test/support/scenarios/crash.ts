// "Nothing acknowledged is lost": writers add, edit and delete notes against a child server that
// is SIGKILLed at a random moment, then restarted on the same data. Every write that got a 200
// must be there exactly; a write cut off by the kill may or may not be there, but never in part.
import { createHash } from 'node:crypto'
import { type ChildServer, startChild } from '../child-server.js'
import type { StoreUnderTest } from '../stores.js'
import { tempDir } from '../temp.js'

export interface CrashOptions {
  store: StoreUnderTest
  kills: number
  writers: number
  /** The kill falls at a random moment between these two times after the load starts. */
  minRunMs: number
  maxRunMs: number
}

export interface CrashResult {
  kills: number
  acknowledgedWrites: number
  interruptedWrites: number
  notesVerified: number
  problems: string[]
}

interface NoteState {
  title: string
  content: string
  tags: string[]
}
type State = NoteState | 'absent'

interface Tracked {
  confirmed: State
  /** States that a write cut off by the kill may have left. */
  possible: State[]
}

interface Writer {
  token: string
  notes: Map<string, Tracked>
  /** Adds cut off by the kill: the note may exist under an id we never saw. */
  pendingAdds: Map<string, NoteState>
  seq: number
}

/** Content derived from its key, of the given size: a torn or mixed write cannot match it. */
function contentFor(key: string, size: number): string {
  const unit = createHash('sha256').update(key).digest('hex')
  return `${key}:` + unit.repeat(Math.ceil(size / unit.length)).slice(0, size)
}

const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)]!
const sizeOf = () => 100 + Math.floor(Math.random() * 20_000)

async function call(base: string, method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(10_000),
  })
  const text = await res.text()
  return {
    status: res.status,
    json: JSON.parse(text) as { note?: { _id: string } & NoteState; notes?: Array<{ _id: string } & NoteState> },
  }
}

/** One writer's loop: each operation either gets its 200 (confirmed) or fails (possible). */
async function writeUntilStopped(
  base: string,
  w: Writer,
  name: string,
  stopped: () => boolean,
  counts: { acked: number; cut: number },
) {
  while (!stopped()) {
    const live = [...w.notes].filter(([, t]) => t.confirmed !== 'absent')
    const r = Math.random()
    try {
      if (r < 0.5 || live.length < 3) {
        const title = `${name}-n${++w.seq}`
        const state: NoteState = { title, content: contentFor(title, sizeOf()), tags: ['crash', String(w.seq)] }
        w.pendingAdds.set(title, state)
        const res = await call(base, 'POST', '/add-note', w.token, state)
        if (res.status !== 200 || !res.json.note) throw new Error(`add-note answered ${res.status}`)
        w.pendingAdds.delete(title)
        w.notes.set(res.json.note._id, { confirmed: state, possible: [] })
      } else if (r < 0.8) {
        const [id, t] = pick(live)
        const prev = t.confirmed as NoteState
        const next: NoteState = { ...prev, content: contentFor(`${prev.title}-e${++w.seq}`, sizeOf()) }
        t.possible.push(next)
        const res = await call(base, 'PUT', `/edit-note/${id}`, w.token, { content: next.content })
        if (res.status !== 200) throw new Error(`edit-note answered ${res.status}`)
        t.confirmed = next
        t.possible = []
      } else {
        const [id, t] = pick(live)
        t.possible.push('absent')
        const res = await call(base, 'DELETE', `/delete-note/${id}`, w.token)
        if (res.status !== 200) throw new Error(`delete-note answered ${res.status}`)
        t.confirmed = 'absent'
        t.possible = []
      }
      counts.acked++
    } catch (err) {
      if (!stopped()) throw err // a failure before the kill is a defect, not an interruption
      counts.cut++
      return
    }
  }
}

const same = (a: State, b: State) =>
  a === 'absent' || b === 'absent'
    ? a === b
    : a.title === b.title && a.content === b.content && JSON.stringify(a.tags) === JSON.stringify(b.tags)

const describeState = (s: State) => (s === 'absent' ? 'absent' : `${s.title} (${s.content.length} chars)`)

/** Compares one user's notes after a restart with what was acknowledged; then adopts them. */
async function verifyWriter(base: string, w: Writer, name: string, problems: string[]): Promise<number> {
  const res = await call(base, 'GET', '/get-all-notes', w.token)
  if (res.status !== 200 || !res.json.notes) {
    problems.push(`${name}: get-all-notes answered ${res.status}`)
    return 0
  }
  const found = new Map(res.json.notes.map((n) => [n._id, { title: n.title, content: n.content, tags: n.tags }]))
  for (const [id, t] of w.notes) {
    const actual: State = found.get(id) ?? 'absent'
    if (![t.confirmed, ...t.possible].some((s) => same(s, actual))) {
      problems.push(`${name} note ${id}: expected ${describeState(t.confirmed)}, found ${describeState(actual)}`)
    }
    w.notes.set(id, { confirmed: actual, possible: [] })
    found.delete(id)
  }
  for (const [id, actual] of found) {
    const pending = w.pendingAdds.get(actual.title)
    if (!pending || !same(pending, actual)) problems.push(`${name}: unexpected note ${id} ${describeState(actual)}`)
    w.notes.set(id, { confirmed: actual, possible: [] })
  }
  w.pendingAdds.clear()
  return res.json.notes.length
}

export async function runCrashScenario(options: CrashOptions): Promise<CrashResult> {
  const tmp = tempDir(`notes-crash-${options.store.name}-`)
  const env = options.store.childEnv()
  const result: CrashResult = { kills: 0, acknowledgedWrites: 0, interruptedWrites: 0, notesVerified: 0, problems: [] }
  let server: ChildServer | undefined
  try {
    server = await startChild({ dataDir: tmp.path, env })
    const writers: Writer[] = []
    for (let i = 0; i < options.writers; i++) {
      const email = `crash.${process.pid}.${Date.now()}.${i}@example.com`
      const res = await fetch(`${server.base}/create-account`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ fullName: `Writer ${i}`, email, password: 'crash test password' }),
      })
      const body = (await res.json()) as { accessToken: string }
      writers.push({ token: body.accessToken, notes: new Map(), pendingAdds: new Map(), seq: 0 })
    }
    for (let k = 0; k < options.kills; k++) {
      let stopped = false
      const counts = { acked: 0, cut: 0 }
      const base = server.base
      const loops = writers.map((w, i) => writeUntilStopped(base, w, `w${i}`, () => stopped, counts))
      const delay = options.minRunMs + Math.random() * (options.maxRunMs - options.minRunMs)
      await new Promise((r) => setTimeout(r, delay))
      stopped = true
      await server.kill()
      await Promise.all(loops)
      result.kills++
      result.acknowledgedWrites += counts.acked
      result.interruptedWrites += counts.cut
      for (const p of await options.store.checkIntegrity(tmp.path)) result.problems.push(`after kill ${k + 1}: ${p}`)
      server = await startChild({ dataDir: tmp.path, env })
      for (const [i, w] of writers.entries())
        result.notesVerified += await verifyWriter(server.base, w, `kill ${k + 1} w${i}`, result.problems)
    }
    return result
  } finally {
    await server?.stop()
    tmp.remove()
  }
}
