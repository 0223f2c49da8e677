// The one sequence of schema changes both drivers share. Each change has a number and a name,
// the same in both dialects; a dialect that needs the change has one file for it,
// sqlite/migrations/NNNN-name.ts or postgres/migrations/NNNN-name.ts, and a dialect that does
// not has none (its list skips the number). Numbers are never reused and a released change is
// never edited: a new change takes the next number here (docs/architecture.md, "How to add a
// migration").

export interface Change {
  version: number
  name: string
  /** The dialects that have a file for this change. */
  in: ReadonlyArray<'sqlite' | 'postgres'>
}

export const changes: readonly Change[] = [
  { version: 1, name: 'init', in: ['sqlite', 'postgres'] },
  { version: 2, name: 'note-json', in: ['sqlite', 'postgres'] },
  { version: 3, name: 'account-change-notices', in: ['postgres'] },
  { version: 4, name: 'note-versions', in: ['postgres'] },
  { version: 5, name: 'account-usage', in: ['sqlite', 'postgres'] },
  { version: 6, name: 'well-formed-text', in: ['sqlite'] },
  { version: 7, name: 'nfkc-email-keys', in: ['postgres'] },
  { version: 8, name: 'sessions', in: ['sqlite', 'postgres'] },
  { version: 9, name: 'user-versions', in: ['sqlite'] },
  { version: 10, name: 'account-versions', in: ['postgres'] },
  { version: 11, name: 'version-clock-moves-on-account-removal', in: ['sqlite'] },
  { version: 12, name: 'account-usage-without-octet-length', in: ['sqlite'] },
  { version: 13, name: 'drop-account-change-notices', in: ['postgres'] },
]

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
 * The changes recorded in schema_migrations, under their shared numbers: what schema_changes
 * starts with when a build that has it first opens the database. The rows are taken by name when
 * every one names a change of this dialect under its earlier number (what every build writes
 * there), or every one under its shared number (a database renumbered in place by a development
 * build of the shared numbering, never released); a mix that matches neither is an error rather
 * than a guess. Each row keeps its other fields (applied_on).
 */
export function sharedNumbers<R extends AppliedRow>(dialect: 'sqlite' | 'postgres', rows: readonly R[]): R[] {
  const shared = new Map(changes.filter((c) => c.in.includes(dialect)).map((c) => [c.name, c.version]))
  const earlier = earlierNumbers[dialect]
  const underEarlier = rows.every((r) => earlier[r.name] === r.version)
  const underShared = rows.every((r) => shared.get(r.name) === r.version)
  if (!underEarlier && !underShared) {
    const odd = rows.filter((r) => earlier[r.name] !== r.version).map((r) => `${r.version} '${r.name}'`)
    throw new Error(`schema_migrations records migrations this build does not know by those numbers: ${odd.join(', ')}`)
  }
  return rows.map((r) => ({ ...r, version: shared.get(r.name)! })).sort((a, b) => a.version - b.version)
}
