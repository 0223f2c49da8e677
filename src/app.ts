// Builds the Fastify application from a config, a store and a secret; the CLI and the tests decide where it listens.
import cors from '@fastify/cors'
import Fastify, {
  LogController,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify'
import type { FastifyServerOptions } from 'fastify'
import { answerMalformedRequest, answerUnroutable } from './client-errors.js'
import type { Config } from './config.js'
import { ContractError, DATABASE_UNREACHABLE, LOW_DISK_SPACE } from './errors.js'
import { authenticateWith, sendUnauthorized } from './plugins/auth.js'
import { createMetrics } from './plugins/metrics/definitions.js'
import { registerMetrics } from './plugins/metrics/endpoint.js'
import { attachmentMetrics, countingGuard, recordRequests, streamMetrics, timedStore } from './plugins/metrics/hooks.js'
import { registerOpenApi } from './plugins/openapi.js'
import { registerWebApp } from './plugins/web-app.js'
import { accountManagementRoutes } from './routes/account-management.js'
import { accountRoutes } from './routes/accounts.js'
import { attachmentRoutes } from './routes/attachments.js'
import type { BlobStorage } from './blobs/types.js'
import { AttachmentService } from './services/attachments.js'
import { ThumbnailService } from './services/thumbnails.js'
import { healthRoutes } from './routes/health.js'
import { importExportRoutes } from './routes/import-export.js'
import { noteRoutes } from './routes/notes.js'
import { trashAndHistoryRoutes } from './routes/trash-and-history.js'
import { changeRoutes } from './routes/changes.js'
import { streamRoutes } from './routes/streams.js'
import { contractErrorFromValidation } from './schemas/validation-errors.js'
import { AccountSettings } from './services/account-settings.js'
import { AccountService } from './services/accounts.js'
import { type LimiterFactory, createBruteForceGuard } from './services/brute-force.js'
import type { ChangeBus } from './services/change-bus/bus.js'
import { inProcessBus } from './services/change-bus/in-process.js'
import { publishingStore } from './services/change-bus/publishing.js'
import { currentCursor, readChanges } from './services/changes.js'
import { NoteExportService } from './transfer/note-export.js'
import { NoteImportService } from './transfer/note-import.js'
import { NoteService } from './services/notes.js'
import { startSweeps } from './services/retention.js'
import { createPasswordHasher } from './services/passwords.js'
import { SearchPool } from './services/search-pool.js'
import { SessionService } from './services/sessions.js'
import { LiveStreams } from './services/streams.js'
import { type VersionSource, watchVersions } from './services/version-watch.js'
import { type TokenUser, createTokenService } from './services/tokens.js'
import {
  LowDiskSpaceError,
  SessionEndedError,
  type ExportReads,
  type Store,
  StoreUnavailableError,
  type UserRecord,
} from './store/types.js'
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
  secret: string
  limiterFactory?: LimiterFactory
  logger?: FastifyServerOptions['logger']
  webRoot?: string
  /** The change bus between processes (server.ts chooses it); undefined: this process alone, closed with the app. */
  changeBus?: ChangeBus
  /** The store driver's version reads: with them, changes made outside the service reach open streams (version-watch.ts). */
  versions?: VersionSource
  /** Where attachments' bytes live (server.ts opens it); undefined: no attachment endpoints. */
  blobs?: BlobStorage
  /** The pages an account's export reads (the store driver's); undefined: no GET /export-notes. */
  exportReads?: ExportReads
}

/** Client errors raised by Fastify itself, in the contract's words. */
const CLIENT_ERROR_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Content-Type must be application/json',
  FST_ERR_CTP_BODY_TOO_LARGE: 'Request body is too large',
  FST_ERR_CTP_INVALID_JSON_BODY: 'Request body is not valid JSON',
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config } = options
  const metrics = config.metrics.enabled ? createMetrics() : undefined
  const bus = options.changeBus ?? inProcessBus()
  // Every write the app makes publishes from here once it commits (store/methods.ts).
  const store = publishingStore(metrics ? timedStore(options.store, metrics) : options.store, bus)
  const answerAfterBody = answerAfterBodyWith(
    config.bodyLimit,
    config.bodyDrainLimit ?? BODY_DRAIN_FACTOR * config.bodyLimit,
  )
  const refuse = (request: FastifyRequest, reply: FastifyReply) =>
    answerAfterBody(request, reply, () => void sendUnauthorized(reply))
  const app = Fastify({
    logger: options.logger ?? false,
    // One line per request (onResponse below) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimit,
    requestTimeout: config.requestTimeoutMs,
    // Node checks these only every connectionsCheckingInterval: four times per period, so a slow-loris client cannot outlive it.
    http: {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(config.requestTimeoutMs / 4))),
    },
    connectionTimeout: config.connectionTimeoutMs,
    // A Keep-Alive hint past the idle timeout would make clients reuse closed sockets.
    keepAliveTimeout: Math.min(72_000, config.connectionTimeoutMs),
    trustProxy: config.trustProxy,
    routerOptions: { ignoreTrailingSlash: true },
    // While closing, keep-alive requests are served (server.ts closes idle connections): Fastify's 503 is not the contract's.
    return503OnClosing: false,
    frameworkErrors: (err, request, reply) =>
      void answerAfterBody(request, reply, () => answerUnroutable(err, request, reply)),
    clientErrorHandler: answerMalformedRequest,
    // Types are checked as sent: a number is not silently turned into a string.
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

  // JSON only, in UTF-8 whatever its charset says (RFC 8259 §8.1): other bytes are a 400, never stored as U+FFFD.
  // The decoder drops a leading byte order mark, as the RFC allows (docs/contract.md, "Request bodies").
  app.removeAllContentTypeParsers()
  const parseJson = app.getDefaultJsonParser('error', 'error')
  const utf8 = new TextDecoder('utf-8', { fatal: true })
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string
    try {
      text = utf8.decode(body as Buffer)
    } catch {
      return done(new ContractError(400, 'Request body is not valid UTF-8'), undefined)
    }
    if (text.trim() === '') return done(null, undefined)
    void parseJson(request, text, done)
  })

  // `no-store` unless set (the web app's files set it on the raw response): no endpoint can forget to keep tokens uncached.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (!reply.hasHeader('cache-control') && !reply.raw.hasHeader('cache-control'))
      void reply.header('cache-control', 'no-store')
    done(null, payload)
  })

  // Before any route, CORS's OPTIONS * included: each route gets its own hook.
  if (metrics) recordRequests(app, metrics)

  // CORS as Express `cors()` with its defaults (docs/contract.md, "CORS"): @fastify/cors's methods lack PUT and
  // DELETE, and strictPreflight would answer a bare OPTIONS with a plain-text 400 instead of Express's 204.
  await app.register(cors, { origin: '*', methods: 'GET,HEAD,PUT,PATCH,POST,DELETE', strictPreflight: false })

  // Above info the hook would build the line for nothing on every request.
  if (['info', 'debug', 'trace'].includes(app.log.level)) {
    app.addHook('onResponse', async (request, reply) => {
      // The query string is left out: it carries users' search text.
      const path = request.url.split('?')[0]
      const ms = Math.round(reply.elapsedTime * 100) / 100
      request.log.info(
        { method: request.method, path, route: request.routeOptions.url, statusCode: reply.statusCode, ms },
        'request',
      )
    })
  }

  app.setErrorHandler((err: FastifyError, request, reply) => {
    let answer: ContractError
    // A revocation ended the session while its request ran: the request changed nothing.
    if (err instanceof SessionEndedError) return refuse(request, reply)
    if (err instanceof ContractError) answer = err
    else if (err.validation) {
      const context = err.validationContext ?? 'body'
      answer = contractErrorFromValidation(err.validation, context, request)
    } else if (err instanceof StoreUnavailableError) {
      request.log.error({ err }, 'store unavailable')
      answer = new ContractError(503, DATABASE_UNREACHABLE)
    } else if (err instanceof LowDiskSpaceError) {
      // RFC 4918 §11.5: the request may succeed once space is freed.
      answer = new ContractError(507, LOW_DISK_SPACE)
    } else if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      answer = new ContractError(err.statusCode, CLIENT_ERROR_MESSAGES[err.code] ?? (err.message || 'Bad Request'))
    } else {
      request.log.error({ err }, 'internal error')
      answer = new ContractError(500, request.routeOptions.config.internalErrorMessage ?? 'Internal Server Error')
    }
    const body = answer.withErrorKey
      ? { error: true, message: answer.message, ...answer.details }
      : { message: answer.message }
    // A 413 or 415 comes before the body is read (unread-body.ts).
    return answerAfterBody(request, reply, () => void reply.code(answer.statusCode).headers(answer.headers).send(body))
  })

  app.setNotFoundHandler((request, reply) => {
    void reply
      .code(404)
      .send({ error: true, message: `Route ${request.method} ${request.url.split('?')[0]} not found` })
  })

  await registerOpenApi(app)
  app.decorate('metrics', metrics)
  if (metrics && config.metrics.port === undefined) registerMetrics(app, metrics)
  healthRoutes(app, store)

  const tokens = createTokenService(options.secret)
  const bruteForce = createBruteForceGuard(config.bruteForce, options.limiterFactory)
  const guard = metrics ? countingGuard(bruteForce, metrics) : bruteForce
  const passwords = createPasswordHasher(config.passwordHashing)
  const sessions = new SessionService(store)
  const accounts = new AccountService(
    store,
    tokens,
    guard,
    passwords,
    sessions,
    config.registration,
    config.minPasswordLength,
  )
  const authenticate = authenticateWith(
    tokens,
    (token) => sessions.authenticate(token),
    (request, reply) => void refuse(request, reply),
  )
  // What the hook sets, declared so that every request object has one shape.
  app.decorateRequest('user', null as unknown as TokenUser)
  app.decorateRequest('account', null as unknown as UserRecord)
  app.decorateRequest('sessionId', undefined)
  app.decorateRequest('tokenIssuedAt', 0)
  app.decorateRequest('versionsChecked', undefined)
  accountRoutes(app, accounts, authenticate)
  // No search thread starts before the first search, and they stay from then on; closing the app ends them.
  const searches = new SearchPool({
    threads: config.searchThreads,
    queue: config.searchQueue,
    timeoutMs: config.searchTimeoutMs,
  })
  app.addHook('onClose', () => searches.close())
  const notes = new NoteService(store, searches, config.noteQuota, config.retention)
  noteRoutes(app, notes, authenticate)
  trashAndHistoryRoutes(app, notes, authenticate)
  changeRoutes(app, store, authenticate)
  const streams = new LiveStreams({
    bus,
    readFeed: (userId, cursor, limit) => readChanges(store, userId, cursor, limit),
    currentCursor: (userId) => currentCursor(store, userId),
    stillAdmitted: (caller, fresh) => sessions.stillAdmits(caller, fresh),
    settings: config.streams,
    metrics: metrics && streamMetrics(metrics),
    log: app.log,
  })
  const stopWatch = options.versions ? watchVersions(options.versions, streams, app.log) : undefined
  // Before the server stops accepting: streams end at once, so that closing waits for none of them.
  app.addHook('preClose', (done) => {
    stopWatch?.()
    streams.shutdown()
    done()
  })
  if (!options.changeBus) app.addHook('onClose', () => bus.close())
  streamRoutes(app, streams, authenticate)
  const { blobs } = options
  const files = blobs && new AttachmentService(store, blobs, config.attachments)
  if (files) {
    const counted = metrics && attachmentMetrics(metrics)
    const thumbnails = new ThumbnailService(
      (record) => files.read(record),
      (source) => counted?.thumbnail(source),
    )
    await attachmentRoutes(app, { attachments: files, thumbnails, metrics: counted }, authenticate)
  }
  const stopSweeps = startSweeps(
    store,
    config.retention,
    app.log,
    blobs && { blobs, graceDays: config.attachments.graceDays },
  )
  app.addHook('onClose', async () => stopSweeps())
  const settings = new AccountSettings(store, guard, passwords, sessions, files)
  accountManagementRoutes(app, sessions, settings, authenticate)
  const imports = new NoteImportService(store, files, config.retention.trashDays)
  const exports = options.exportReads && new NoteExportService(options.exportReads, files)
  await importExportRoutes(app, { imports, exports, importBytes: config.importMegabytes * 2 ** 20 }, authenticate)
  await registerWebApp(app, options.webRoot)
  return app
}
