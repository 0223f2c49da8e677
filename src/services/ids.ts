// Ids are 24-character lower-case hex strings shaped like MongoDB ObjectIds (docs/contract.md,
// "Ids"), so data and clients of the described system keep working.
// Session ids are not: an ObjectId is a time, a process and a counter, so consecutive ones differ
// only in their last digits, and they tell order and activity. A session id is 128 random bits
// from the operating system's secure source (OWASP ASVS 5.0 V7.2.3), written as 32 lower-case hex
// characters; sessions made before keep their 24-character ids until they end.
import { randomBytes } from 'node:crypto'
import { ObjectId } from 'bson'

export const newId = (): string => new ObjectId().toHexString()

/** A new session id: 16 bytes of crypto.randomBytes, as 32 lower-case hex characters. */
export const newSessionId = (): string => randomBytes(16).toString('hex')

const ID_SHAPE = /^[0-9a-f]{24}$/
const SESSION_ID_SHAPE = /^(?:[0-9a-f]{32}|[0-9a-f]{24})$/

/** A noteId that is not this shape cannot match a note: the caller answers 404. */
export const isWellFormedId = (id: string): boolean => ID_SHAPE.test(id)

/** A session id of either shape (random, or the ObjectId of a session made before); others answer 404. */
export const isWellFormedSessionId = (id: string): boolean => SESSION_ID_SHAPE.test(id)
