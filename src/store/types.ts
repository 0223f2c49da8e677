// The Store: what the services hold, and the cache layer (cache/) and the change bus wrap. It is the intersection of
// its sections, one file each, and each driver implements a section in the file of the same name (a test holds
// that: test/store-layout.test.ts). The sections' types and the store's errors are exported here too, for the
// layers above; the drivers' own contract is driver.ts.
import type { AccountStore } from './accounts.js'
import type { AttachmentStore } from './attachments.js'
import type { FeedStore } from './feed.js'
import type { NoteStore } from './notes.js'
import type { SearchStore } from './search.js'
import type { SessionStore } from './sessions.js'
import type { TrashHistoryStore } from './trash-history.js'

export type { NotePatch, NoteRecord, RevisionRecord, StoredRevisionRecord, TrashedNoteRecord } from '../note-shape.js'
export type * from './accounts.js'
export type * from './attachments.js'
export * from './errors.js'
export type * from './feed.js'
export type * from './notes.js'
export type * from './search.js'
export type * from './sessions.js'
export type * from './transfer.js'
export type * from './trash-history.js'

/** What every driver answers as a whole: readiness and its end. */
export interface StoreLifecycle {
  /** Resolves when the store answers a trivial query (readiness). */
  ping(): Promise<void>
  close(): Promise<void>
}

export type Store = AccountStore &
  SessionStore &
  NoteStore &
  TrashHistoryStore &
  FeedStore &
  SearchStore &
  AttachmentStore &
  StoreLifecycle
