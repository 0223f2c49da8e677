// Both drivers number their schema changes in one sequence: a change has the same number and
// name in sqlite/migrations/NNNN-name.ts and postgres/migrations/NNNN-name.ts, and a dialect that
// does not need it has no file (its list skips the number; test/migrations.test.ts holds both
// lists to this). Numbers are never reused and a released change is never edited: a new change
// takes the next number (docs/architecture.md, "How to add a migration").

/**
 * The numbers each dialect gave its changes before they shared one sequence, by name. Builds
 * from then record these in schema_migrations and decide by them what to run; later builds keep
 * that table as those builds wrote it (and add these numbers for the changes they apply) so that
 * such a build still finds its own migrations applied, and record the shared numbers in
 * schema_changes (docs/architecture.md, "Migrations").
 */
export const earlierNumbers: Readonly<Record<'sqlite' | 'postgres', Readonly<Record<string, number>>>> = {
  sqlite: {
    init: 1,
    'note-json': 2,
    'account-usage': 3,
    'well-formed-text': 4,
    sessions: 7,
    'user-versions': 8,
    'version-clock-moves-on-account-removal': 9,
  },
  postgres: {
    init: 1,
    'note-json': 2,
    'account-change-notices': 3,
    'note-versions': 4,
    'account-usage': 5,
    'nfkc-email-keys': 6,
    sessions: 9,
    'account-versions': 10,
  },
}

export interface AppliedRow {
  version: number
  name: string
}

/**
 * The changes recorded in schema_migrations, under their shared numbers (`list`: the dialect's
 * migrations): what schema_changes starts with when a build that has it first opens the
 * database. Every row must name a change of this dialect under its earlier number, which is what
 * every earlier build writes there; anything else is an error rather than a guess. Each row
 * keeps its other fields (applied_on).
 */
export function sharedNumbers<R extends AppliedRow>(dialect: 'sqlite' | 'postgres', rows: readonly R[], list: readonly AppliedRow[]): R[] {
  const shared = new Map(list.map((m) => [m.name, m.version]))
  const earlier = earlierNumbers[dialect]
  const odd = rows.filter((r) => earlier[r.name] !== r.version || !shared.has(r.name))
  if (odd.length > 0) {
    const named = odd.map((r) => `${r.version} '${r.name}'`)
    throw new Error(`schema_migrations records migrations this build does not know by those numbers: ${named.join(', ')}`)
  }
  return rows.map((r) => ({ ...r, version: shared.get(r.name)! })).sort((a, b) => a.version - b.version)
}
