// The replica on this device: one IndexedDB database per account, named by the account's id, so
// the app never opens another account's. It holds the notes as the server last listed them, the
// change feed's cursor they are current to, and the outbox (outbox.ts); and, since version 2, the
// attachments this device has shown (their bytes, for offline) and those added offline that wait
// to be uploaded (web/src/attachments/file-store.ts). Signing out deletes the database
// (docs/web-app.md, "Live and offline").
import { type DBSchema, type IDBPDatabase, deleteDB, openDB } from 'idb'
import type { Note } from '../api'
import type { Waiting } from './outbox'

const PREFIX = 'notes-service.replica.'
/** Set while this browser holds a replica: the page then shows it instead of asking for the listing first. */
export const REPLICA_MARK = 'notes-service.replica'
/** How many changes wait in the outbox, for the sign-out's warning on any page (storage.ts reads it). */
export const UNSENT_MARK = 'notes-service.unsent'

/** An attachment's answer as this device keeps it, by the URL it was fetched from. */
export interface KeptFile {
  url: string
  /** The bytes; absent when only the file's facts were asked for (a chip's HEAD). */
  blob?: Blob
  type: string
  /** In bytes; -1 when the server did not say. */
  size: number
  etag?: string
  /** When it was last shown (ms): the oldest go first when the kept bytes pass their bound. */
  usedOn: number
}

/** A file added offline: its bytes until they are uploaded, then the link it got. */
export interface PendingUpload {
  /** The local id the note's link names (`local-<uuid>`). */
  id: string
  name: string
  type: string
  size: number
  blob?: Blob
  /** The link the upload got (`/attachments/<id>/<name>`): what the note's local link becomes. */
  url?: string
}

interface ReplicaSchema extends DBSchema {
  notes: { key: string; value: Note }
  outbox: { key: number; value: Waiting }
  meta: { key: string; value: string }
  files: { key: string; value: KeptFile }
  uploads: { key: string; value: PendingUpload }
}

export type ReplicaDatabase = IDBPDatabase<ReplicaSchema>

/** Opens (creating or upgrading) the account's database; it closes itself when another page deletes or upgrades it. */
export async function openReplicaDatabase(userId: string, onClosed?: () => void): Promise<ReplicaDatabase> {
  const db = await openDB<ReplicaSchema>(PREFIX + userId, 2, {
    upgrade(db, oldVersion) {
      if (oldVersion < 1) {
        db.createObjectStore('notes', { keyPath: '_id' })
        db.createObjectStore('outbox', { keyPath: 'seq' })
        db.createObjectStore('meta')
      }
      if (oldVersion < 2) {
        db.createObjectStore('files', { keyPath: 'url' })
        db.createObjectStore('uploads', { keyPath: 'id' })
      }
    },
    // Another tab signing out deletes this database, or a newer build upgrades it: let it.
    blocking() {
      db.close()
      onClosed?.()
    },
  })
  return db
}

export interface Loaded {
  notes: Note[]
  outbox: Waiting[]
  cursor: string | undefined
}

export class ReplicaDb {
  private constructor(private readonly db: IDBPDatabase<ReplicaSchema>) {}

  static async open(userId: string): Promise<ReplicaDb> {
    return new ReplicaDb(await openReplicaDatabase(userId))
  }

  close(): void {
    this.db.close()
  }

  async load(): Promise<Loaded> {
    const tx = this.db.transaction(['notes', 'outbox', 'meta'])
    const [notes, outbox, cursor] = await Promise.all([
      tx.objectStore('notes').getAll(),
      tx.objectStore('outbox').getAll(),
      tx.objectStore('meta').get('cursor'),
    ])
    return { notes, outbox, cursor }
  }

  /** Changes from the feed, and the cursor just after them, in one transaction. */
  async apply(changes: Array<{ noteId: string; note: Note | null }>, cursor: string | undefined): Promise<void> {
    const tx = this.db.transaction(['notes', 'meta'], 'readwrite')
    const notes = tx.objectStore('notes')
    for (const { noteId, note } of changes) void (note ? notes.put(note) : notes.delete(noteId))
    if (cursor !== undefined) void tx.objectStore('meta').put(cursor, 'cursor')
    await tx.done
    markReplica()
  }

  /** The whole listing again (a first visit, or an expired cursor). */
  async replace(notes: Note[], cursor: string): Promise<void> {
    const tx = this.db.transaction(['notes', 'meta'], 'readwrite')
    void tx.objectStore('notes').clear()
    for (const note of notes) void tx.objectStore('notes').put(note)
    void tx.objectStore('meta').put(cursor, 'cursor')
    await tx.done
    markReplica()
  }

  /** `unsent`: how many of them wait for the network (not those on their way with someone waiting for the answer). */
  async saveOutbox(outbox: readonly Waiting[], unsent: number): Promise<void> {
    mark(UNSENT_MARK, unsent ? String(unsent) : null)
    const tx = this.db.transaction('outbox', 'readwrite')
    void tx.store.clear()
    for (const w of outbox) void tx.store.put(w)
    await tx.done
  }
}

function mark(key: string, value: string | null): void {
  try {
    if (value === null) localStorage.removeItem(key)
    else localStorage.setItem(key, value)
  } catch {
    // storage disabled: the page asks for the listing first, as without a replica
  }
}

const markReplica = () => mark(REPLICA_MARK, '1')

/** Deletes the account's replica and outbox from this browser (signing out). */
export async function deleteReplica(userId: string): Promise<void> {
  mark(REPLICA_MARK, null)
  mark(UNSENT_MARK, null)
  await deleteDB(PREFIX + userId)
}

/** Deletes the replicas of every other account: what a person left when their session ended goes when someone else signs in here. */
export async function deleteOtherReplicas(userId: string): Promise<void> {
  const databases = await indexedDB.databases()
  await Promise.all(
    databases.filter((d) => d.name?.startsWith(PREFIX) && d.name !== PREFIX + userId).map((d) => deleteDB(d.name!)),
  )
}
