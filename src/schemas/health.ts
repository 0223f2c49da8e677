// GET /healthz and GET /readyz, for operators: answers and OpenAPI operations.
import { Type } from '@sinclair/typebox'
import { operatorOperation } from './operations.js'

const Up = Type.Object({ status: Type.Literal('ok') }, { description: 'Up.' })
const Down = Type.Object(
  { status: Type.Literal('unavailable'), message: Type.String() },
  { description: 'The store does not answer; the service cannot serve requests.' },
)

export const healthz = { ...operatorOperation('healthz', 'Liveness: the process answers'), response: { 200: Up } }

export const readyz = {
  ...operatorOperation('readyz', 'Readiness: the store answers'),
  response: { 200: Up, 503: Down },
}
