// The orders of the store's lists, for both drivers' SQL (same column names; each schema has an index in this order).

/** Notes: pinned first, then newest createdOn first, ties by _id descending (Store.listNotesJson). */
export const NOTE_LIST_ORDER = 'ORDER BY is_pinned DESC, created_on DESC, id DESC'

/** Sessions: most recently used first, then newest created, ties by _id descending (Store.listSessions). */
export const SESSION_LIST_ORDER = 'ORDER BY last_used_on DESC, created_on DESC, id DESC'
