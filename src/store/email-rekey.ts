// The email-key migration of both stores (SQLite 6, PostgreSQL 7), with services/accounts.ts's key
// rule frozen here, as a released migration never changes. Of accounts the new rule gives one key,
// one whose key does not change keeps it, else the oldest; the others get a key no login reaches
// and keep their data until an operator acts (docs/compatibility.md, "The email key").

/** trim, NFKC, then Unicode's default (locale-independent) lower-casing. */
export const migratedEmailKey = (email: string): string => email.trim().normalize('NFKC').toLowerCase()

export type KeyedUser = { id: string; email: string; emailKey: string; createdOn: string }

export type Rekeyed = KeyedUser & { newKey: string }

const oldestFirst = (a: KeyedUser, b: KeyedUser): number =>
  a.createdOn < b.createdOn ? -1 : a.createdOn > b.createdOn ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0

/** The users whose key changes under the rule, in the order they are read. */
export function changedKeys(users: Iterable<KeyedUser>): Rekeyed[] {
  const changed: Rekeyed[] = []
  for (const user of users) {
    const newKey = migratedEmailKey(user.email)
    if (newKey !== user.emailKey) changed.push({ ...user, newKey })
  }
  return changed
}

/** A key of its own (ids are unique) for each changed account while keys move, so the unique index never trips half way. */
export const parkedKey = (id: string): string => `MIGRATING ${id}`

export const unreachableKey = (id: string, holderId: string): string => `UNREACHABLE ${id}: same key as ${holderId}`

/** `keys`: the key each changed account ends with, in claiming order. */
type KeyPlan = { keys: Array<{ id: string; key: string }>; unreachable: Array<{ user: Rekeyed; holderId: string }> }

/** `currentHolders`: each new key's holder before the migration; a holder that is itself changing gives its key up. */
export function planKeys(changedUsers: readonly Rekeyed[], currentHolders: ReadonlyMap<string, string>): KeyPlan {
  const changed = [...changedUsers].sort(oldestFirst)
  const changing = new Set(changed.map((u) => u.id))
  const claimed = new Map<string, string>()
  const plan: KeyPlan = { keys: [], unreachable: [] }
  for (const user of changed) {
    const current = currentHolders.get(user.newKey)
    const holderId = current !== undefined && !changing.has(current) ? current : claimed.get(user.newKey)
    if (holderId === undefined) {
      claimed.set(user.newKey, user.id)
      plan.keys.push({ id: user.id, key: user.newKey })
    } else {
      plan.keys.push({ id: user.id, key: unreachableKey(user.id, holderId) })
      plan.unreachable.push({ user, holderId })
    }
  }
  return plan
}

export function warnUnreachable(plan: KeyPlan): void {
  for (const { user, holderId } of plan.unreachable) {
    process.emitWarning(
      // Ids only: the log is no place for users' addresses.
      `account ${user.id} has the same email key as account ${holderId} under the ` +
        'NFKC email rule; it keeps its data but cannot log in until an operator gives it another email ' +
        '(docs/compatibility.md, "The email key")',
      { code: 'NOTES_SERVICE_EMAIL_KEY_COLLISION' },
    )
  }
}
