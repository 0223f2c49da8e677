// Generated requests for the routes a token opens (the contract's and the account-management
// ones, docs/accounts.md), with the bodies, content types and chunking of fuzz.ts:
// - with a revoked token (its session ended, its account deleted, its "not before" time passed),
//   every one must get the bare 401, whatever else is wrong with it;
// - with a live token, the account-management routes must answer in the contract's style
//   (accountProblems), never 5xx.
import fc from 'fast-check'
import { type FuzzRequest, type Sender, anyJson, body, contentType } from './fuzz.js'

/** Every route that needs a token, with `:id` for its path parameter. */
export const AUTHENTICATED_ROUTES: ReadonlyArray<readonly [string, string]> = [
  ['GET', '/get-user'],
  ['POST', '/add-note'],
  ['PUT', '/edit-note/:id'],
  ['DELETE', '/delete-note/:id'],
  ['PUT', '/update-note-pinned/:id'],
  ['GET', '/get-all-notes'],
  ['GET', '/search-notes'],
  ['POST', '/logout'],
  ['GET', '/get-sessions'],
  ['DELETE', '/delete-session/:id'],
  ['POST', '/logout-everywhere'],
  ['PUT', '/change-password'],
  ['PUT', '/edit-user'],
  ['DELETE', '/delete-account'],
]

/** The account-management routes a live token may be fuzzed on without ending itself. */
export const NON_ENDING_ROUTES: ReadonlyArray<readonly [string, string]> = [
  ['GET', '/get-sessions'],
  ['DELETE', '/delete-session/:id'],
  ['PUT', '/change-password'],
  ['PUT', '/edit-user'],
  ['DELETE', '/delete-account'],
]

const ACCOUNT_FIELDS = [
  'currentPassword',
  'newPassword',
  'password',
  'fullName',
  'email',
  'sessionId',
  'title',
  'content',
]
const accountBody = fc.oneof(
  body,
  fc.dictionary(fc.constantFrom(...ACCOUNT_FIELDS), anyJson, { maxKeys: 4 }).map((o) => Buffer.from(JSON.stringify(o))),
)

/**
 * Requests of `routes`, each with one of `tokens` under any scheme word (the scheme is not
 * checked: docs/contract.md, "Authentication"), path ids that stay inside the route (no '/' or dot segment), HEAD for GET
 * routes too, and any body.
 */
export function tokenRequests(
  routes: ReadonlyArray<readonly [string, string]>,
  tokens: string[],
  ids: string[],
): fc.Arbitrary<FuzzRequest> {
  // Not '%FF' nor an id over the router's 100 characters: such a path never reaches a route
  // (client-errors.ts answers it from the router, before any hook), so no token is looked at;
  // fuzz.ts covers them.
  const id = fc.oneof(
    fc.constantFrom(...ids),
    fc.stringMatching(/^[0-9a-f]{24}$/),
    fc.stringMatching(/^[A-Za-z0-9_~-]{1,40}$/),
    fc.constantFrom('%00', '%20', '__proto__', 'a'.repeat(100)),
  )
  const query = fc.oneof(
    fc.string({ maxLength: 50 }).map((q) => `?query=${encodeURIComponent(q)}`),
    fc.constantFrom('', '?query', '?query[]=a', '?__proto__[x]=1'),
  )
  return fc
    .record({
      route: fc.constantFrom(...routes),
      head: fc.boolean(),
      id,
      query,
      token: fc.constantFrom(...tokens),
      scheme: fc.constantFrom('Bearer', 'bearer', 'Token', 'x'),
      body: accountBody,
      contentType,
      trailingSlash: fc.boolean(),
      chunks: fc.option(fc.integer({ min: 2, max: 5 }), { freq: 3, nil: undefined }),
    })
    .map((r) => {
      const [method, template] = r.route
      let path = template.replace(':id', r.id) + (r.trailingSlash ? '/' : '')
      if (template === '/search-notes') path += r.query
      const headers: Record<string, string> = { authorization: `${r.scheme} ${r.token}` }
      if (r.contentType !== undefined) headers['content-type'] = r.contentType
      return {
        method: method === 'GET' && r.head ? 'HEAD' : method,
        path,
        headers,
        ...(r.body ? { body: r.body } : {}),
        ...(r.chunks ? { chunks: r.chunks } : {}),
      }
    })
}

/** Problems of an answer to a revoked token: anything but the bare 401. */
export function notBare401(req: FuzzRequest, status: number, contentType: string | undefined, text: string): string[] {
  if (status !== 401) return [`status ${status}: ${text.slice(0, 120)}`]
  if (!/^text\/plain/.test(contentType ?? '')) return [`content type ${contentType}`]
  return text === (req.method === 'HEAD' ? '' : 'Unauthorized') ? [] : [`body ${text.slice(0, 120)}`]
}

const keysOf = (value: unknown) => (value && typeof value === 'object' ? Object.keys(value).sort() : [])
const same = (value: unknown, keys: string[]) => JSON.stringify(keysOf(value)) === JSON.stringify([...keys].sort())
const SESSION_KEYS = ['_id', 'client', 'createdOn', 'current', 'lastUsedOn']
const USER_KEYS = ['_id', 'createdOn', 'email', 'fullName']

/** Problems of an account-management answer to a live token: the contract's style, never 5xx. */
export function accountProblems(
  req: FuzzRequest,
  status: number,
  contentType: string | undefined,
  text: string,
): string[] {
  if (![200, 400, 401, 404, 408, 413, 415, 429, 431].includes(status)) return [`status ${status}`]
  if (text.includes('$argon2')) return ['a password hash in the response']
  if (req.method === 'HEAD') return text === '' ? [] : ['HEAD answered with a body']
  if (status === 401)
    return text === 'Unauthorized' && /^text\/plain/.test(contentType ?? '') ? [] : ['401 is not plain "Unauthorized"']
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return [`body is not JSON: ${text.slice(0, 100)}`]
  }
  const b = parsed as Record<string, unknown>
  if (status !== 200)
    return same(b, ['error', 'message']) && b.error === true && typeof b.message === 'string'
      ? []
      : [`error shape ${text.slice(0, 200)}`]
  const route = `/${req.path.split('?')[0]!.split('/')[1]}`
  if (b.error !== false || typeof b.message !== 'string') return [`200 shape ${text.slice(0, 200)}`]
  if (route === '/get-sessions') {
    return same(b, ['error', 'message', 'sessions']) &&
      Array.isArray(b.sessions) &&
      b.sessions.every((s) => same(s, SESSION_KEYS))
      ? []
      : ['get-sessions shape']
  }
  if (route === '/edit-user')
    return same(b, ['error', 'message', 'user']) && same(b.user, USER_KEYS) ? [] : ['edit-user shape']
  return same(b, ['error', 'message']) ? [] : [`${route} shape`]
}

/** Runs `numRuns` requests through `send`; resolves to the first problem's report, or undefined, and the statuses seen. */
export async function fuzzWith(
  requests: fc.Arbitrary<FuzzRequest>,
  send: Sender,
  problems: (req: FuzzRequest, status: number, contentType: string | undefined, text: string) => string[],
  numRuns: number,
): Promise<{ report: string | undefined; statuses: Record<number, number> }> {
  const statuses: Record<number, number> = {}
  const property = fc.asyncProperty(requests, async (req) => {
    const res = await send(req)
    statuses[res.status] = (statuses[res.status] ?? 0) + 1
    const found = problems(req, res.status, res.contentType, res.text)
    if (found.length > 0)
      throw new Error(`${req.method} ${req.path.slice(0, 120)} -> ${res.status}: ${found.join('; ')}`)
  })
  const details = await fc.check(property, { numRuns, endOnFailure: true })
  return {
    report: details.failed ? `${String(details.errorInstance)}\n${fc.defaultReportMessage(details) ?? ''}` : undefined,
    statuses,
  }
}
