// The one migration runner of both drivers (docs/architecture.md, "Migrations"), over a small adapter per dialect
// (sqlite/migrate.ts, postgres/migrate.ts) that says how its tables are asked and written. The runner is a generator
// of the adapter's answers, so that SQLite runs it synchronously, statement by statement, and PostgreSQL awaits each.
import { type AppliedRow, type RecordedRow, earlierNumbers, sharedNumbers } from './migrations.js'

/** An adapter's answer: at once (SQLite) or later (PostgreSQL). */
type Answer<T> = T | Promise<T>

export interface MigrationAdapter<M extends AppliedRow> {
  readonly dialect: 'sqlite' | 'postgres'
  /** Every change of the dialect, whatever a run is asked to apply: what schema_migrations' rows are read by. */
  readonly migrations: readonly M[]
  /** Makes schema_migrations, the table earlier builds run by, when it is missing. */
  createEarlierTable(): Answer<void>
  hasChangesTable(): Answer<boolean>
  createChangesTable(): Answer<void>
  /** schema_migrations' rows. */
  earlierRows(): Answer<RecordedRow[]>
  /** The numbers schema_changes records. */
  appliedNumbers(): Answer<number[]>
  /** When schema_migrations records this change under its earlier number, the time it was applied. */
  earlierAppliedOn(version: number, name: string): Answer<string | undefined>
  /** Records a row in schema_changes, or in schema_migrations unless it is there already. */
  record(table: 'schema_changes' | 'schema_migrations', row: RecordedRow): Answer<void>
  /** The change's `sql`, then its `run`. */
  apply(migration: M): Answer<void>
  /**
   * One step under the migration lock: SQLite takes its write lock (BEGIN IMMEDIATE) for each step and commits it;
   * PostgreSQL holds its advisory lock in the one transaction the whole run is, and these do nothing.
   */
  begin(): Answer<void>
  commit(): Answer<void>
  rollback(): Answer<void>
}

/** What the runner yields: an adapter's answer, handed back to it once it is there. */
type Steps<T> = Generator<unknown, T, unknown>

function* ask<T>(answer: Answer<T>): Steps<T> {
  return (yield answer) as T
}

/** `step` between begin() and commit(); rolled back when it throws. */
function* locked<T>(adapter: MigrationAdapter<AppliedRow>, step: () => Steps<T>): Steps<T> {
  yield* ask(adapter.begin())
  try {
    const result = yield* step()
    yield* ask(adapter.commit())
    return result
  } catch (err) {
    yield* ask(adapter.rollback())
    throw err
  }
}

/** Applies every change of `list` that schema_changes does not record; returns how many ran. */
export function* migrationRun<M extends AppliedRow>(adapter: MigrationAdapter<M>, list: readonly M[]): Steps<number> {
  const a = adapter as unknown as MigrationAdapter<AppliedRow>
  yield* ask(adapter.createEarlierTable())
  // Filled from schema_migrations (sharedNumbers) under the lock, checking again: one process fills it.
  if (!(yield* ask(adapter.hasChangesTable()))) {
    yield* locked(a, function* () {
      if (yield* ask(adapter.hasChangesTable())) return
      const rows = yield* ask(adapter.earlierRows())
      yield* ask(adapter.createChangesTable())
      for (const row of sharedNumbers(adapter.dialect, rows, adapter.migrations))
        yield* ask(adapter.record('schema_changes', row))
    })
  }
  const applied = new Set(yield* ask(adapter.appliedNumbers()))
  let count = 0
  for (const m of list) {
    if (applied.has(m.version)) continue
    const earlier = earlierNumbers[adapter.dialect][m.name]
    count += yield* locked(a, function* () {
      if ((yield* ask(adapter.appliedNumbers())).includes(m.version)) return 0
      // An earlier build, starting at the same moment, applied it since the fill.
      const since = earlier === undefined ? undefined : yield* ask(adapter.earlierAppliedOn(earlier, m.name))
      if (since !== undefined) {
        yield* ask(adapter.record('schema_changes', { version: m.version, name: m.name, applied_on: since }))
        return 0
      }
      yield* ask(adapter.apply(m))
      const now = new Date().toISOString()
      yield* ask(adapter.record('schema_changes', { version: m.version, name: m.name, applied_on: now }))
      if (earlier !== undefined)
        yield* ask(adapter.record('schema_migrations', { version: earlier, name: m.name, applied_on: now }))
      return 1
    })
  }
  return count
}

/** Runs the steps at once: every answer must be there (SQLite). */
export function runNow<T>(steps: Steps<T>): T {
  let next = steps.next()
  while (!next.done) next = steps.next(next.value)
  return next.value
}

/** Runs the steps awaiting each answer (PostgreSQL). */
export async function runAwaiting<T>(steps: Steps<T>): Promise<T> {
  let next = steps.next()
  while (!next.done) {
    let answer: unknown
    try {
      answer = await next.value
    } catch (err) {
      next = steps.throw(err)
      continue
    }
    next = steps.next(answer)
  }
  return next.value
}
