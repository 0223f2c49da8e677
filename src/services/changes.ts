// The change feed's rules (docs/sync.md, "The change feed"): what a cursor is and which ones are served. A cursor
// is the account's feed epoch and a change number; it stays opaque to clients.
import { cursorExpired } from '../errors.js'
import type { Store } from '../store/types.js'

/** Changes a page holds when the client names no limit, and at most. */
export const CHANGES_LIMIT = { default: 500, max: 1000 } as const

export interface Change {
  noteId: string
  /** The note's JSON as the listing sends it; null: it has left the listing. */
  json: string | null
  /** The cursor just after this change: a stream's event id. */
  cursor: string
}

export interface ChangesAnswer {
  changes: Change[]
  /** Where the next read starts. */
  cursor: string
  /** Whether more changes follow at once. */
  more: boolean
}

const cursorOf = (epoch: string, seq: number) => `${epoch}.${seq.toString(36)}`

/** The epoch and number a cursor names; undefined when the text is no cursor. */
function parseCursor(text: string): { epoch: string; seq: number } | undefined {
  const match = /^([0-9a-f]{1,32})\.([0-9a-z]{1,11})$/.exec(text)
  if (!match) return undefined
  const seq = parseInt(match[2]!, 36)
  return Number.isSafeInteger(seq) ? { epoch: match[1]!, seq } : undefined
}

/**
 * The account's changes after `cursor` (every live note when undefined), at most `limit`. A cursor of another epoch,
 * below the feed's floor or past its head, or no cursor at all, is answered 410: only listing again recovers from it.
 */
export async function readChanges(
  store: Store,
  userId: string,
  cursor: string | undefined,
  limit: number,
): Promise<ChangesAnswer> {
  const from = cursor === undefined ? undefined : parseCursor(cursor)
  if (cursor !== undefined && from === undefined) throw cursorExpired()
  // One more than asked says whether another page follows.
  const page = await store.changesSince(userId, from?.seq, limit + 1)
  if (!page) throw cursorExpired()
  if (from && (from.epoch !== page.epoch || from.seq < page.floor || from.seq > page.head)) throw cursorExpired()
  const more = page.changes.length > limit
  const served = page.changes.slice(0, limit)
  return {
    changes: served.map((c) => ({ noteId: c.noteId, json: c.json, cursor: cursorOf(page.epoch, c.seq) })),
    cursor: cursorOf(page.epoch, more ? served[served.length - 1]!.seq : page.head),
    more,
  }
}

/** The cursor of the account's feed as it is now (a live update stream opened without one starts there). */
export async function currentCursor(store: Store, userId: string): Promise<string> {
  const page = await store.changesSince(userId, 0, 0)
  if (!page) throw cursorExpired()
  return cursorOf(page.epoch, page.head)
}
