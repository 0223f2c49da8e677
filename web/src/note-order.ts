// The API's listing order (docs/contract.md, "List order"): pinned first, then newest createdOn,
// ties by _id descending. The app keeps every list it shows in this order.
import type { Note } from './api.js'

export function compareNotes(a: Note, b: Note): number {
  if (a.isPinned !== b.isPinned) return a.isPinned ? -1 : 1
  if (a.createdOn !== b.createdOn) return a.createdOn < b.createdOn ? 1 : -1
  return a._id < b._id ? 1 : a._id > b._id ? -1 : 0
}
