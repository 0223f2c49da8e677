// Ids are 24-character lower-case hex strings shaped like MongoDB ObjectIds (decisions.md,
// "Records"), so data and clients of the described system keep working.
import { ObjectId } from 'bson'

export const newId = (): string => new ObjectId().toHexString()

const ID_SHAPE = /^[0-9a-f]{24}$/

/** A noteId that is not this shape cannot match a note: the caller answers 404. */
export const isWellFormedId = (id: string): boolean => ID_SHAPE.test(id)
