// Builds the Fastify application from a config, a store and a secret. It never listens: the CLI
// (src/cli.ts) and the tests decide where it runs.
import cors from '@fastify/cors'
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { answerMalformedRequest, answerUnroutable } from './client-errors.js'
import type { Config } from './config.js'
import { ContractError } from './errors.js'
import { authenticateWith, verifyTokenWith } from './plugins/auth.js'
import { countingGuard, createMetrics, recordRequests, registerMetrics, timedStore } from './plugins/metrics.js'
import { registerOpenApi } from './plugins/openapi.js'
import { accountRoutes } from './routes/accounts.js'
import { healthRoutes } from './routes/health.js'
import { noteRoutes } from './routes/notes.js'
import { contractErrorFromValidation } from './schemas/validation-errors.js'
import { AccountService } from './services/accounts.js'
import { type LimiterFactory, createBruteForceGuard } from './services/brute-force.js'
import { NoteService } from './services/notes.js'
import { createPasswordHasher } from './services/passwords.js'
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

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config } = options
  const metrics = config.metrics.enabled ? createMetrics() : undefined
  const store = metrics ? timedStore(options.store, metrics) : options.store
  const app = Fastify({
    logger: options.logger ?? false,
    // One line per request is written in onResponse below, instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimit,
    requestTimeout: config.requestTimeoutMs,
    // Node checks request and header timeouts only every connectionsCheckingInterval (30 s by
    // default), so a slow-loris client outlived REQUEST_TIMEOUT_MS by up to 30 s (found by
    // test/system/no-hang.test.ts). Check four times per timeout period, at most once a second.
    http: {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(config.requestTimeoutMs / 4))),
    },
    connectionTimeout: config.connectionTimeoutMs,
    // Fastify's default 72 s keep-alive (sent as `Keep-Alive: timeout=72`) outlived the 60 s idle
    // timeout, so clients trusting the hint reused closed sockets (found by no-hang.test.ts).
    keepAliveTimeout: Math.min(72_000, config.connectionTimeoutMs),
    trustProxy: config.trustProxy,
    routerOptions: { ignoreTrailingSlash: true },
    // While closing, a request that still arrives on an open keep-alive connection is served
    // rather than answered with Fastify's own 503 body, which is not in the contract's shape;
    // server.ts closes such connections as soon as they are idle.
    return503OnClosing: false,
    frameworkErrors: answerUnroutable,
    clientErrorHandler: answerMalformedRequest,
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

  // Before any route is added (CORS's OPTIONS * is the first): each route gets its own hook.
  if (metrics) recordRequests(app, metrics)

  // strictPreflight off: an OPTIONS request without the preflight headers gets the same 204,
  // instead of the plugin's plain-text 400 "Invalid Preflight Request", which no contract
  // answer looks like (found by test/security/fuzz.test.ts).
  await app.register(cors, { origin: '*', strictPreflight: false })

  // The request line is written at info; above that level (LOG_LEVEL=warn, logging off) the hook
  // would build the line for nothing on every request, so it is not installed at all.
  if (['info', 'debug', 'trace'].includes(app.log.level)) {
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
  }

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

  // Operations (issue 7): the API description first, since it collects routes as they are added.
  await registerOpenApi(app)
  app.decorate('metrics', metrics)
  if (metrics) registerMetrics(app, metrics, config.metrics)
  healthRoutes(app, store)

  const tokens = createTokenService(options.secret)
  const bruteForce = createBruteForceGuard(config.bruteForce, options.limiterFactory)
  const guard = metrics ? countingGuard(bruteForce, metrics) : bruteForce
  const accounts = new AccountService(store, tokens, guard, createPasswordHasher(config.passwordHashing))
  const authenticate = authenticateWith(tokens, (id) => accounts.currentUser(id))
  accountRoutes(app, accounts, authenticate)
  noteRoutes(app, new NoteService(store), authenticate, verifyTokenWith(tokens))
  return app
}
