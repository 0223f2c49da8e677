// The email-key migration of both stores (SQLite 4, PostgreSQL 6): every stored email_key is
// recomputed with the key rule of services/accounts.ts (emailKeyOf). The rule is written out
// again here, frozen, because a released migration must never change: a later rule gets a
// migration of its own.
//
// When the new rule gives two accounts the same key, one keeps it and the others are left
// unreachable:
//  1. an account whose key does not change keeps it (every login that reaches it today still
//     does); among accounts whose keys all change, the oldest (createdOn, then id) takes it;
//  2. every other account of the group gets the key `UNREACHABLE <its id>: same key as <holder
//     id>`. It holds capital letters, which no key the rule makes can hold (the rule lower-cases
//     last), so no registration or login can reach it; the account, its email as submitted, its
//     password and its notes stay as they are. An operator finds them by that prefix
//     (docs/compatibility.md, "The email key") and gives each a free email and the key the rule
//     makes of it.
// A process warning (NOTES_SERVICE_EMAIL_KEY_COLLISION) names each of them.

/** trim, NFKC, then Unicode's default (locale-independent) lower-casing. */
export const migratedEmailKey = (email: string): string => email.trim().normalize('NFKC').toLowerCase()

export interface KeyedUser {
  id: string
  email: string
  emailKey: string
  createdOn: string
}

export interface Rekeyed extends KeyedUser {
  newKey: string
}

/** Oldest first (createdOn, then id): the order in which changed accounts claim keys. */
export const oldestFirst = (a: KeyedUser, b: KeyedUser): number =>
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

/**
 * While keys move, each changed account holds a key of its own (unique: ids are), so that freeing
 * an old key and claiming a new one never trips the unique index half way.
 */
export const parkedKey = (id: string): string => `MIGRATING ${id}`

export const unreachableKey = (id: string, holderId: string): string => `UNREACHABLE ${id}: same key as ${holderId}`

export interface KeyPlan {
  /** The key each changed account ends with, in claiming order. */
  keys: Array<{ id: string; key: string }>
  unreachable: Array<{ user: Rekeyed; holderId: string }>
}

/**
 * Decides the keys of the changed accounts. `currentHolders` maps each new key to the account
 * that holds it before the migration, where one does; a holder that is itself changing gives its
 * key up, so it does not count.
 */
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

/** One process warning per account the migration left unreachable. */
export function warnUnreachable(plan: KeyPlan): void {
  for (const { user, holderId } of plan.unreachable) {
    process.emitWarning(
      // Ids only: the log is no place for users' addresses; docs/compatibility.md's query finds them.
      `account ${user.id} has the same email key as account ${holderId} under the ` +
        'NFKC email rule; it keeps its data but cannot log in until an operator gives it another email ' +
        '(docs/compatibility.md, "The email key")',
      { code: 'NOTES_SERVICE_EMAIL_KEY_COLLISION' },
    )
  }
}
