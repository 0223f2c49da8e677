// The Store's change feed section (docs/sync.md, "The change feed"). Each driver implements it in its feed.ts.

/** A note's latest change as the account's change feed keeps it. */
export interface FeedChange {
  /** The change's number in the account's feed: increasing in the order the changes committed. */
  seq: number
  noteId: string
  /** The note's stored JSON, as the listing sends it; null: the note has left the listing (trashed or erased). */
  json: string | null
}

/** A page of an account's change feed, read in one snapshot with the feed's state. */
export interface ChangePage {
  /** Drawn when the account's feed was made: a number means something only with its epoch. */
  epoch: string
  /** The number of the account's latest change (0: none yet). */
  head: number
  /** Changes numbered at or below this may have been erased: a cursor below it cannot be served. */
  floor: number
  /** In number order, at most the limit asked. */
  changes: FeedChange[]
}

export interface FeedStore {
  /**
   * The account's changes numbered after `since`, up to `limit`, in number order; without `since`, only its live notes
   * (what a first listing needs). Undefined when no account has this id.
   */
  changesSince(userId: string, since: number | undefined, limit: number): Promise<ChangePage | undefined>
}
