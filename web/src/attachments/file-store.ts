// What this device keeps of the account's attachments, in the account's own IndexedDB database
// beside the replica (sync/replica-db.ts): the bytes of those it has shown, so that a note opened
// once shows its pictures offline, and the files added offline until the outbox uploads them.
//
// Why there and not in the service worker's Cache Storage: the database is the account's alone
// (named by its id), so one account's files are never served to another on a shared browser, and
// signing out deletes them with the notes, in one step the app already takes. A cache keyed by URL
// would mix accounts (the same path answers each account differently) unless every key carried the
// account, and would need a sign-out step of its own; the worker would also have to see the token.
//
// Only the replica's engine creates the database: this module opens it when it exists, so a write
// that lands after signing out never brings the account's files back.
import { type KeptFile, type PendingUpload, type ReplicaDatabase, openReplicaDatabase } from '../sync/replica-db'

export type { KeptFile, PendingUpload }

/** The most bytes kept for offline; past it, the files shown longest ago go first. */
export const KEPT_BYTES = 100 * 2 ** 20

const DATABASE_PREFIX = 'notes-service.replica.'
const open = new Map<string, Promise<ReplicaDatabase | undefined>>()

async function exists(userId: string): Promise<boolean> {
  if (typeof indexedDB.databases !== 'function') return true
  const databases = await indexedDB.databases()
  return databases.some((d) => d.name === DATABASE_PREFIX + userId)
}

/** The account's database when it exists; undefined without one (signed out, no IndexedDB). */
function database(userId: string): Promise<ReplicaDatabase | undefined> {
  let db = open.get(userId)
  if (!db) {
    db = exists(userId)
      .then((found) => (found ? openReplicaDatabase(userId, () => open.delete(userId)) : undefined))
      .catch(() => undefined)
    void db.then((opened) => {
      if (!opened) open.delete(userId)
    })
    open.set(userId, db)
  }
  return db
}

/** Runs `work` on the database; any failure (quota, a database being deleted) leaves things as they are. */
async function using<T>(userId: string, work: (db: ReplicaDatabase) => Promise<T>): Promise<T | undefined> {
  try {
    const db = await database(userId)
    return db ? await work(db) : undefined
  } catch {
    return undefined
  }
}

export function keptFile(userId: string, url: string): Promise<KeptFile | undefined> {
  return using(userId, async (db) => {
    const file = await db.get('files', url)
    if (file) await db.put('files', { ...file, usedOn: Date.now() })
    return file
  })
}

/** Keeps `file`, then lets the oldest go while the kept bytes pass KEPT_BYTES. */
export async function keepFile(userId: string, file: Omit<KeptFile, 'usedOn'>): Promise<void> {
  await using(userId, async (db) => {
    await db.put('files', { ...file, usedOn: Date.now() })
    const all = await db.getAll('files')
    let total = all.reduce((sum, f) => sum + (f.blob ? f.size : 0), 0)
    if (total <= KEPT_BYTES) return
    const tx = db.transaction('files', 'readwrite')
    for (const old of all.filter((f) => f.blob).sort((a, b) => a.usedOn - b.usedOn)) {
      if (total <= KEPT_BYTES || old.url === file.url) break
      total -= old.size
      void tx.store.delete(old.url)
    }
    await tx.done
  })
}

export function forgetFile(userId: string, url: string): Promise<void> {
  return using(userId, (db) => db.delete('files', url)).then(() => undefined)
}

/** Forgets everything kept of attachment `id` (deleted): its thumbnails, its bytes, its facts. */
export function forgetAttachment(userId: string, id: string): Promise<void> {
  return using(userId, async (db) => {
    const tx = db.transaction('files', 'readwrite')
    for (const url of await tx.store.getAllKeys()) if (url.includes(`/attachments/${id}`)) void tx.store.delete(url)
    await tx.done
  }).then(() => undefined)
}

export function pendingUpload(userId: string, id: string): Promise<PendingUpload | undefined> {
  return using(userId, (db) => db.get('uploads', id))
}

/** Keeps a file added offline; false when it could not be kept (no database), so it cannot wait. */
export async function keepPending(userId: string, upload: PendingUpload): Promise<boolean> {
  return (await using(userId, (db) => db.put('uploads', upload).then(() => true))) ?? false
}

/**
 * The upload `id` got `url`: its bytes move to the kept files under the URL the note now links to,
 * and the local id's record keeps the URL, so a copy of the note still naming the local id (an
 * editor left open) is rewritten the same way.
 */
export async function uploaded(userId: string, id: string, url: string): Promise<void> {
  await using(userId, async (db) => {
    const upload = await db.get('uploads', id)
    if (!upload) return
    const { blob, ...rest } = upload
    await db.put('uploads', { ...rest, url })
    if (blob) await db.put('files', { url, blob, type: upload.type, size: upload.size, usedOn: Date.now() })
  })
}
