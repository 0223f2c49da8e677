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
 * The numbers each dialect gave its changes before they shared one sequence, by name. A database
 * made by such a build records these in schema_migrations; renumbered() gives it the shared ones.
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
 * The rows of schema_migrations with each change's shared number, when the database was made
 * with the earlier numbers; undefined when there is nothing to change (a database made with the
 * shared numbers, a later build's, or an empty one). A database is taken for an earlier one only when every row
 * it records is a change of this dialect under its earlier number, and at least one of those
 * numbers differs from the shared one; anything else that disagrees with the sequence is an
 * error rather than a guess.
 */
export function renumbered(dialect: 'sqlite' | 'postgres', rows: readonly AppliedRow[]): AppliedRow[] | undefined {
  const shared = new Map(changes.map((c) => [c.name, c.version]))
  const earlier = earlierNumbers[dialect]
  // Rows of changes this build does not know come from a later build, which numbers as this one does.
  if (rows.every((r) => !shared.has(r.name) || shared.get(r.name) === r.version)) return undefined
  const isEarlier = rows.every((r) => earlier[r.name] === r.version)
  if (!isEarlier) {
    const odd = rows.filter((r) => shared.get(r.name) !== r.version).map((r) => `${r.version} '${r.name}'`)
    throw new Error(`schema_migrations records migrations this build does not know by those numbers: ${odd.join(', ')}`)
  }
  return rows.map((r) => ({ version: shared.get(r.name)!, name: r.name }))
}
