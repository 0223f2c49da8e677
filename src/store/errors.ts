// What the Store rejects with, for the layers above to answer (src/app.ts maps each to its status).

/** Store.updateUser's `replacing` hash is no longer the stored one: another change of the password came first. */
export class PasswordReplacedError extends Error {
  constructor() {
    super('the password was changed meanwhile')
    this.name = 'PasswordReplacedError'
  }
}

/** Thrown by a driver when its database cannot be reached; answered with 503. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError'
}

/** An account write's actor is no longer admitted: nothing changed, and the answer is the bare 401. */
export class SessionEndedError extends Error {
  constructor() {
    super('the session ended before the write')
    this.name = 'SessionEndedError'
  }
}

/** The account is at its note quota (Store.insertNote, Store.updateNote); answered with 403. */
export class NoteQuotaExceededError extends Error {
  constructor(readonly limit: 'notes' | 'bytes') {
    super(`note quota reached (${limit})`)
    this.name = 'NoteQuotaExceededError'
  }
}

/** A SQLite write while the data directory has less free space than the minimum; answered with 507. */
export class LowDiskSpaceError extends Error {
  constructor(readonly minFreeBytes: number) {
    super(`less than ${minFreeBytes} bytes free`)
    this.name = 'LowDiskSpaceError'
  }
}

/** The account's attachments would pass its attachment quota (Store.insertAttachment); answered with 403. */
export class AttachmentQuotaExceededError extends Error {
  constructor(readonly limitBytes: number) {
    super(`attachment quota reached (${limitBytes} bytes)`)
    this.name = 'AttachmentQuotaExceededError'
  }
}
