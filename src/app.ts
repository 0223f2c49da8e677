// Builds the Fastify application from a config, a store and a secret. It never listens: the CLI
// (src/cli.ts) and the tests decide where it runs.
import cors from '@fastify/cors'
import Fastify, {
  LogController,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify'
import type { Config } from './config.js'
import { ContractError } from './errors.js'
import { authenticateWith } from './plugins/auth.js'
import { accountRoutes } from './routes/accounts.js'
import { noteRoutes } from './routes/notes.js'
import { contractErrorFromValidation } from './schemas/validation-errors.js'
import { AccountService } from './services/accounts.js'
import { type LimiterFactory, createBruteForceGuard } from './services/brute-force.js'
import { NoteService } from './services/notes.js'
import { createTokenService } from './services/tokens.js'
import { type Store, StoreUnavailableError } from './store/types.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The message of a 500 on this route (edit, delete and pin add a trailing space). */
    internalErrorMessage?: string
  }
}

export interface AppOptions {
  config: Config
  store: Store
  /** The HS256 key; at least 32 bytes (see config.ts). */
  secret: string
  /** Shared brute-force counters (Redis); in-process memory when absent. */
  limiterFactory?: LimiterFactory
  /** Fastify logger options; false (the default for tests) logs nothing. */
  logger?: FastifyServerOptions['logger']
}

/** Client errors raised by Fastify itself, in the contract's words. */
function clientErrorMessage(err: FastifyError): string {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Content-Type must be application/json'
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'Request body is too large'
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'Request body is not valid JSON'
    default:
      return err.message || 'Bad Request'
  }
}

/** The routes whose last path segment is a noteId. */
const NOTE_ID_ROUTE = /^\/(edit-note|delete-note|update-note-pinned)\//

/**
 * Requests the router cannot even look up: a path with invalid percent-encoding (`%FF`) or a
 * parameter over the router's length limit. Fastify's own answers (400/414 with its own body
 * shape) break the contract; a noteId that cannot be decoded or is too long is a malformed id,
 * so 404 "Note not found" (decisions.md), and any other such path is an unknown route.
 */
function answerUnroutable(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const path = request.url.split('?')[0] ?? ''
  const message = NOTE_ID_ROUTE.test(path) ? 'Note not found' : `Route ${request.method} ${path} not found`
  request.log.info({ code: err.code }, 'unroutable request')
  void reply.code(404).header('access-control-allow-origin', '*').send({ error: true, message })
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, store } = options
  const app = Fastify({
    logger: options.logger ?? false,
    // One line per request is written in onResponse below, instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimit,
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.connectionTimeoutMs,
    trustProxy: config.trustProxy,
    routerOptions: { ignoreTrailingSlash: true },
    frameworkErrors: answerUnroutable,
    // Types are checked as sent: a number is not silently turned into a string.
    ajv: { customOptions: { coerceTypes: false, allErrors: false } },
  })

  // JSON is the only body type (spec §1); an empty body counts as {} (decisions.md).
  app.removeAllContentTypeParsers()
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString() // parseAs: 'string' hands over a string
    if (text.trim() === '') return done(null, undefined)
    void parseJson(request, text, done)
  })

  await app.register(cors, { origin: '*' })

  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        // The query string is left out: it carries users' search text.
        path: request.url.split('?')[0],
        route: request.routeOptions.url,
        statusCode: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 100) / 100,
      },
      'request',
    )
  })

  app.setErrorHandler((err: FastifyError, request, reply) => {
    let answer: ContractError
    if (err instanceof ContractError) answer = err
    else if (err.validation) answer = contractErrorFromValidation(err.validation, err.validationContext ?? 'body')
    else if (err instanceof StoreUnavailableError) {
      request.log.error({ err }, 'store unavailable')
      answer = new ContractError(503, 'Service Unavailable: the database cannot be reached')
    } else if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      answer = new ContractError(err.statusCode, clientErrorMessage(err))
    } else {
      request.log.error({ err }, 'internal error')
      answer = new ContractError(500, request.routeOptions.config.internalErrorMessage ?? 'Internal Server Error')
    }
    void reply
      .code(answer.statusCode)
      .headers(answer.headers)
      .send(answer.withErrorKey ? { error: true, message: answer.message } : { message: answer.message })
  })

  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send({ error: true, message: `Route ${request.method} ${request.url.split('?')[0]} not found` })
  })

  const tokens = createTokenService(options.secret)
  const authenticate = authenticateWith(tokens, async (id) => (await store.findUserById(id)) !== undefined)
  const guard = createBruteForceGuard(config.bruteForce, options.limiterFactory)
  accountRoutes(app, new AccountService(store, tokens, guard), authenticate)
  noteRoutes(app, new NoteService(store), authenticate)
  return app
}
