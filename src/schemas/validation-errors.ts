// The first Ajv error of a request as the contract's answer (docs/contract.md, "Field problems").
import type { FastifyRequest } from 'fastify'
import type { FastifySchemaValidationError } from 'fastify/types/schema.js'
import { ContractError } from '../errors.js'
import { NAME_TEXT, WELL_FORMED, formatProblemMessage, notWellFormedMessage } from '../unicode.js'
import { answersOf } from './fields.js'

const ARTICLE: Record<string, string> = {
  string: 'a string',
  boolean: 'a boolean',
  array: 'an array',
  object: 'an object',
  number: 'a number',
}

/** `context`: the part of `request` that failed (body, querystring, params); its route schema holds the fields' answers. */
export function contractErrorFromValidation(
  errors: FastifySchemaValidationError[],
  context: string,
  request: FastifyRequest,
): ContractError {
  const schema = (request.routeOptions.schema as Record<string, unknown> | undefined)?.[context]
  // The answer for a NAME_TEXT failure (fullName only) depends on the value.
  const data = context === 'body' ? request.body : undefined
  const first = errors[0]
  if (!first) return new ContractError(400, 'Invalid request')
  const params = first.params
  const path = first.instancePath.split('/').filter(Boolean)
  const field = path[0]

  if (first.keyword === 'required') {
    const missing = String(params.missingProperty)
    const answers = answersOf(schema, missing)
    return new ContractError(400, answers.required ?? `${missing} is required`, !answers.bare)
  }
  if (!field) {
    const what = context === 'body' ? 'Request body' : context === 'querystring' ? 'Query string' : context
    return new ContractError(400, `${what} must be a JSON object`)
  }
  const invalid = answersOf(schema, field).invalid
  if (invalid && (first.keyword === 'type' || first.keyword === 'pattern')) return new ContractError(400, invalid)
  switch (first.keyword) {
    case 'type':
      if (path.length > 1) return new ContractError(400, `${field} must be an array of strings`)
      return new ContractError(400, `${field} must be ${ARTICLE[String(params.type)] ?? String(params.type)}`)
    case 'maxLength':
      return new ContractError(
        400,
        `${path.length > 1 ? 'each of ' : ''}${field} must be at most ${String(params.limit)} characters`,
      )
    case 'format':
      if (params.format === WELL_FORMED) return new ContractError(400, notWellFormedMessage(field))
      if (params.format === NAME_TEXT) {
        return new ContractError(
          400,
          formatProblemMessage(field, (data as Record<string, unknown> | undefined)?.[field]),
        )
      }
      return new ContractError(400, `${field} is invalid`)
    case 'maxItems':
      return new ContractError(400, `${field} must have at most ${String(params.limit)} items`)
    default:
      return new ContractError(400, `${field} is invalid`)
  }
}
