// The request fields (fields.ts) applied to what an operator types (`users` commands), in an HTTP client's words.
import type { TObject } from '@sinclair/typebox'
import { FormatRegistry } from '@sinclair/typebox'
import { Value, ValueErrorType } from '@sinclair/typebox/value'
import {
  NAME_TEXT,
  WELL_FORMED,
  formatProblemMessage,
  isNameText,
  isWellFormedText,
  notWellFormedMessage,
} from '../unicode.js'
import { answersOf } from './fields.js'

if (!FormatRegistry.Has(WELL_FORMED)) FormatRegistry.Set(WELL_FORMED, isWellFormedText)
if (!FormatRegistry.Has(NAME_TEXT)) FormatRegistry.Set(NAME_TEXT, isNameText)

/** The first problem of `value` against `schema`, or undefined; an empty string counts as missing, as over HTTP. */
export function firstProblem(schema: TObject, value: Record<string, string | undefined>): string | undefined {
  const given = Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== ''))
  for (const field of schema.required ?? []) {
    if (!(field in given)) return answersOf(schema, field).required ?? `${field} is required`
  }
  const error = Value.Errors(schema, given).First()
  if (!error) return undefined
  const field = error.path.split('/')[1] ?? 'value'
  switch (error.type) {
    case ValueErrorType.StringMaxLength:
      return `${field} must be at most ${String(error.schema.maxLength)} characters`
    case ValueErrorType.StringFormat:
      return error.schema.format === NAME_TEXT ? formatProblemMessage(field, error.value) : notWellFormedMessage(field)
    default:
      return `${field} is invalid`
  }
}
