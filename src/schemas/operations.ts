// What /openapi.json says of each route besides its schemas: @fastify/swagger reads these keys, Fastify ignores them.

/** The name of the bearer security scheme declared in plugins/openapi.ts. */
export const BEARER = 'bearerAuth'

/** The operations of `tag`, which with `bearer` require the token. */
export const operationsOf =
  (tag: string, bearer: boolean) => (operationId: string, summary: string, description?: string) => ({
    tags: [tag],
    ...(bearer ? { security: [{ [BEARER]: [] }] } : {}),
    operationId,
    summary,
    ...(description === undefined ? {} : { description }),
  })

/** Health, readiness and metrics, for operators. */
export const operatorOperation = operationsOf('operations', false)
