// The orders the store's lists come in, written once for both drivers' SQL (the columns have the
// same names in both schemas, and each schema has an index in the same order).

/** Notes: pinned first, then newest createdOn first, ties by _id descending (Store.listNotesJson). */
export const NOTE_LIST_ORDER = 'ORDER BY is_pinned DESC, created_on DESC, id DESC'

/** Sessions: most recently used first, then newest created, ties by _id descending (Store.listSessions). */
export const SESSION_LIST_ORDER = 'ORDER BY last_used_on DESC, created_on DESC, id DESC'
