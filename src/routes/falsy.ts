// The contract treats a falsy value ("", 0, false, null) like an absent field (docs/contract.md,
// "Missing means falsy"): dropping such keys before validation gives that from one schema, and is the one place the
// rule is applied (edit-note's "only truthy fields" included: services/notes.ts takes what is left).
import type { FastifyRequest } from 'fastify'

function withoutFalsy(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value // schema answers 400
  const kept: Record<string, unknown> = {}
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    // '__proto__' is never a field of ours; assigning it would change kept's prototype.
    if (field && key !== '__proto__') kept[key] = field
  }
  return kept
}

export async function dropFalsyFields(request: FastifyRequest): Promise<void> {
  request.body = request.body === undefined ? {} : withoutFalsy(request.body)
}

export async function dropFalsyQueryFields(request: FastifyRequest): Promise<void> {
  request.query = withoutFalsy(request.query)
}

export async function emptyBodyIsObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined) request.body = {}
}
