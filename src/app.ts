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
import { answerMalformedRequest, answerUnroutable } from './client-errors.js'
import type { Config } from './config.js'
import { ContractError, LOW_DISK_SPACE } from './errors.js'
import { authenticateWith, sendUnauthorized } from './plugins/auth.js'
import { countingGuard, createMetrics, recordRequests, registerMetrics, timedStore } from './plugins/metrics.js'
import { registerOpenApi } from './plugins/openapi.js'
import { registerWebApp } from './plugins/web-app.js'
import { accountManagementRoutes } from './routes/account-management.js'
import { accountRoutes } from './routes/accounts.js'
import { healthRoutes } from './routes/health.js'
import { noteRoutes } from './routes/notes.js'
import { contractErrorFromValidation } from './schemas/validation-errors.js'
import { AccountSettings } from './services/account-settings.js'
import { AccountService } from './services/accounts.js'
import { type LimiterFactory, createBruteForceGuard } from './services/brute-force.js'
import { NoteService } from './services/notes.js'
import { createPasswordHasher } from './services/passwords.js'
import { SearchPool } from './services/search-pool.js'
import { SessionService } from './services/sessions.js'
import { type TokenUser, createTokenService } from './services/tokens.js'
import { LowDiskSpaceError, SessionEndedError, type Store, StoreUnavailableError, type UserRecord } from './store/types.js'
import { NAME_TEXT, WELL_FORMED, isNameText, isWellFormedText } from './unicode.js'
import { BODY_DRAIN_FACTOR, answerAfterBodyWith } from './unread-body.js'

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
  /** The web app's build (dist/web by default; see plugins/web-app.ts). */
  webRoot?: string
}

/** A request body that is not UTF-8 (the JSON parser below). */
export const BODY_NOT_UTF8 = 'Request body is not valid UTF-8'

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
  const answerAfterBody = answerAfterBodyWith(config.bodyLimit, config.bodyDrainLimit ?? BODY_DRAIN_FACTOR * config.bodyLimit)
  const app = Fastify({
    logger: options.logger ?? false,
    // One line per request is written in onResponse below, instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimit,
    requestTimeout: config.requestTimeoutMs,
    // Node checks request and header timeouts only every connectionsCheckingInterval (30 s by
    // default), so a slow-loris client would outlive REQUEST_TIMEOUT_MS by up to that much
    // (test/system/no-hang.test.ts sends one). Check four times per timeout period, at most once
    // a second.
    http: {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(config.requestTimeoutMs / 4))),
    },
    connectionTimeout: config.connectionTimeoutMs,
    // Fastify's default 72 s keep-alive (sent as `Keep-Alive: timeout=72`) would outlive the idle
    // timeout (CONNECTION_TIMEOUT_MS), and clients trusting the hint would reuse closed sockets
    // (test/system/no-hang.test.ts).
    keepAliveTimeout: Math.min(72_000, config.connectionTimeoutMs),
    trustProxy: config.trustProxy,
    routerOptions: { ignoreTrailingSlash: true },
    // While closing, a request that still arrives on an open keep-alive connection is served
    // rather than answered with Fastify's own 503 body, which is not in the contract's shape;
    // server.ts closes such connections as soon as they are idle.
    return503OnClosing: false,
    frameworkErrors: (err, request, reply) => void answerAfterBody(request, reply, () => answerUnroutable(err, request, reply)),
    clientErrorHandler: answerMalformedRequest,
    // Types are checked as sent: a number is not silently turned into a string.
    // WELL_FORMED: strings UTF-8 can carry; NAME_TEXT: those without control characters, for a
    // name (unicode.ts); checked where every body is validated.
    ajv: {
      customOptions: {
        coerceTypes: false,
        allErrors: false,
        formats: {
          [WELL_FORMED]: { type: 'string', validate: isWellFormedText },
          [NAME_TEXT]: { type: 'string', validate: isNameText },
        },
      },
    },
  })

  // JSON is the only body type; an empty body counts as {} (docs/contract.md, "Request bodies").
  // The body must be UTF-8 (RFC 8259 §8.1), whatever its charset parameter says: bytes that are
  // not (an overlong form, a lone continuation byte, a cut sequence, an encoded surrogate, a byte
  // above F4) are a 400, instead of being stored as U+FFFD and acknowledged as if they had been
  // read. A byte order mark at the start is skipped, as the RFC allows a reader to do: the
  // decoder drops it (ignoreBOM false), so clients that write one keep working.
  app.removeAllContentTypeParsers()
  const parseJson = app.getDefaultJsonParser('error', 'error')
  const utf8 = new TextDecoder('utf-8', { fatal: true })
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string
    try {
      text = utf8.decode(body as Buffer) // parseAs: 'buffer' hands over a Buffer
    } catch {
      return done(new ContractError(400, BODY_NOT_UTF8), undefined)
    }
    if (text.trim() === '') return done(null, undefined)
    void parseJson(request, text, done)
  })

  // Every answer is `Cache-Control: no-store` unless its route set its own: tokens and accounts'
  // data (login, create-account, get-user, get-sessions, edit-user, every note endpoint) must not
  // be kept by a browser's cache or a proxy, where another user of the machine or the proxy
  // could read them later, and an error answer has nothing worth keeping either. Applied to all
  // rather than listed per route, so a new endpoint cannot be forgotten. The web app's pages and
  // files set their own (web-app.ts: no-cache, or a year for hashed assets; @fastify/static sets
  // it on the raw response, hence the second check), and keep it. The answers given outside any
  // route (client-errors.ts) set no-store themselves.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (!reply.hasHeader('cache-control') && !reply.raw.hasHeader('cache-control')) void reply.header('cache-control', 'no-store')
    done(null, payload)
  })

  // Before any route is added (CORS's OPTIONS * is the first): each route gets its own hook.
  if (metrics) recordRequests(app, metrics)

  // CORS as the described system's Express `cors()` with its defaults (docs/contract.md, "CORS";
  // the defaults: https://github.com/expressjs/cors#configuration-options): origin `*`, the six methods below,
  // the requested headers reflected (with `Vary: Access-Control-Request-Headers`), preflight
  // answered 204, no credentials, no max-age. @fastify/cors's own default methods are only
  // GET,HEAD,POST, with which browsers refuse PUT and DELETE from another origin.
  // strictPreflight off: an OPTIONS request without the preflight headers gets the same 204, as
  // from Express, instead of the plugin's plain-text 400 "Invalid Preflight Request", which no
  // contract answer looks like (test/security/fuzz.test.ts sends such requests). One difference is
  // left: the plugin's 204 also says `Content-Length: 0`, which browsers accept.
  await app.register(cors, { origin: '*', methods: 'GET,HEAD,PUT,PATCH,POST,DELETE', strictPreflight: false })

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
    // A session that a revocation ended while its request ran: the request changed nothing.
    if (err instanceof SessionEndedError) return answerAfterBody(request, reply, () => void sendUnauthorized(reply))
    if (err instanceof ContractError) answer = err
    else if (err.validation) {
      const context = err.validationContext ?? 'body'
      answer = contractErrorFromValidation(err.validation, context, context === 'body' ? request.body : undefined)
    } else if (err instanceof StoreUnavailableError) {
      request.log.error({ err }, 'store unavailable')
      answer = new ContractError(503, 'Service Unavailable: the database cannot be reached')
    } else if (err instanceof LowDiskSpaceError) {
      // 507 Insufficient Storage (RFC 4918 §11.5): the request may succeed once space is freed.
      answer = new ContractError(507, LOW_DISK_SPACE)
    } else if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      answer = new ContractError(err.statusCode, clientErrorMessage(err))
    } else {
      request.log.error({ err }, 'internal error')
      answer = new ContractError(500, request.routeOptions.config.internalErrorMessage ?? 'Internal Server Error')
    }
    // A 413 or 415 comes before the body is read: the client gets it once it has sent the body
    // (unread-body.ts), instead of a reset connection.
    return answerAfterBody(request, reply, () => {
      void reply
        .code(answer.statusCode)
        .headers(answer.headers)
        .send(answer.withErrorKey ? { error: true, message: answer.message } : { message: answer.message })
    })
  })

  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send({ error: true, message: `Route ${request.method} ${request.url.split('?')[0]} not found` })
  })

  // Operations: the API description first, since it collects routes as they are added.
  await registerOpenApi(app)
  app.decorate('metrics', metrics)
  if (metrics) registerMetrics(app, metrics, config.metrics)
  healthRoutes(app, store)

  const tokens = createTokenService(options.secret)
  const bruteForce = createBruteForceGuard(config.bruteForce, options.limiterFactory)
  const guard = metrics ? countingGuard(bruteForce, metrics) : bruteForce
  const passwords = createPasswordHasher(config.passwordHashing)
  const sessions = new SessionService(store)
  const accounts = new AccountService(store, tokens, guard, passwords, sessions, config.registration, config.minPasswordLength)
  // The 401 of the token check comes before the body is read (unread-body.ts).
  const refuse = (request: FastifyRequest, reply: FastifyReply) => void answerAfterBody(request, reply, () => void sendUnauthorized(reply))
  const authenticate = authenticateWith(tokens, (token) => sessions.authenticate(token), refuse)
  // What the hook sets, declared so that every request object has one shape
  // (https://fastify.dev/docs/latest/Reference/Decorators/#decoraterequestname-value-dependencies).
  app.decorateRequest('user', null as unknown as TokenUser)
  app.decorateRequest('account', null as unknown as UserRecord)
  app.decorateRequest('sessionId', undefined)
  app.decorateRequest('tokenIssuedAt', 0)
  app.decorateRequest('versionsChecked', undefined)
  accountRoutes(app, accounts, authenticate)
  // Search patterns run on threads of this app's own (each --workers process has its pool); no
  // thread starts before the first search, and closing the app ends them.
  const searches = new SearchPool({ threads: config.searchThreads, queue: config.searchQueue, timeoutMs: config.searchTimeoutMs })
  app.addHook('onClose', () => searches.close())
  noteRoutes(app, new NoteService(store, searches, config.noteQuota), authenticate)
  // Beside the contract's: sessions, password, name, the account itself (docs/accounts.md).
  accountManagementRoutes(app, sessions, new AccountSettings(store, guard, passwords, sessions), authenticate)
  // The web app for people and the API reference, on this same origin.
  await registerWebApp(app, options.webRoot)
  return app
}
