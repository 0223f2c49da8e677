// Ids are shaped like MongoDB ObjectIds (docs/contract.md, "Ids"). Session ids are random (OWASP
// ASVS 5.0 V7.2.3), as consecutive ObjectIds tell order and activity; old sessions keep theirs.
import { randomBytes } from 'node:crypto'
import { ObjectId } from 'bson'

export const newId = (): string => new ObjectId().toHexString()

export const newSessionId = (): string => randomBytes(16).toString('hex')

/** A noteId that is not this shape cannot match a note: the caller answers 404. */
export const isWellFormedId = (id: string): boolean => /^[0-9a-f]{24}$/.test(id)

/** Either shape; others answer 404. */
export const isWellFormedSessionId = (id: string): boolean => /^(?:[0-9a-f]{32}|[0-9a-f]{24})$/.test(id)
