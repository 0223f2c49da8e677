// Checks one response against the wire contract's shapes (docs/contract.md): the status is one
// the contract uses, a 401 is plain `Unauthorized`, errors are `{error: true, message}` (or
// add-note's bare `{message}`), and each 200 has its endpoint's exact keys. Returns the problems
// found; an empty list means the response is in shape.
import { Note } from '../../src/note-shape.js'
import { APP_PAGES, DOCS_PAGE } from '../../src/plugins/web-app.js'

export interface Seen {
  method: string
  /** Path without the query string. */
  path: string
  status: number
  contentType: string | undefined
  text: string
}

// 408 and 431 come from the HTTP layer (a request too slow, headers too large), in the error shape;
// 403 and 507 from the limits on what one client may store (docs/security.md).
const ALLOWED_STATUS = new Set([200, 204, 400, 401, 403, 404, 408, 413, 415, 429, 431, 507])
const USER_KEYS = ['_id', 'createdOn', 'email', 'fullName']
const NOTE_KEYS = Object.keys(Note.properties)

const keysOf = (value: unknown) => (value && typeof value === 'object' ? Object.keys(value).sort() : [])
const sameKeys = (value: unknown, keys: string[]) => JSON.stringify(keysOf(value)) === JSON.stringify([...keys].sort())

function noteProblems(note: unknown): string[] {
  if (!sameKeys(note, NOTE_KEYS)) return [`note keys ${keysOf(note).join(',')}`]
  const n = note as Record<string, unknown>
  const ok =
    typeof n._id === 'string' &&
    /^[0-9a-f]{24}$/.test(n._id) &&
    typeof n.title === 'string' &&
    typeof n.content === 'string' &&
    Array.isArray(n.tags) &&
    n.tags.every((t) => typeof t === 'string') &&
    typeof n.isPinned === 'boolean'
  return ok ? [] : [`note field types ${JSON.stringify(n).slice(0, 200)}`]
}

function successProblems(route: string, body: Record<string, unknown>): string[] {
  switch (route) {
    case '/create-account':
      if (body.error === true)
        return sameKeys(body, ['error', 'message']) && body.message === 'User already exists'
          ? []
          : ['create-account error shape']
      return sameKeys(body, ['accessToken', 'error', 'message', 'user']) && sameKeys(body.user, USER_KEYS)
        ? []
        : ['create-account shape']
    case '/login':
      return sameKeys(body, ['accessToken', 'email', 'error', 'message']) && body.message === 'Login Successful'
        ? []
        : ['login shape']
    case '/get-user':
      return sameKeys(body, ['message', 'user']) && sameKeys(body.user, USER_KEYS) ? [] : ['get-user shape']
    case '/get-all-notes':
    case '/search-notes': {
      if (!sameKeys(body, ['error', 'message', 'notes']) || !Array.isArray(body.notes)) return [`${route} shape`]
      return (body.notes as unknown[]).flatMap(noteProblems)
    }
    default:
      if (!sameKeys(body, ['error', 'message', 'note']) || body.error !== false) return [`${route} shape`]
      return noteProblems(body.note)
  }
}

/**
 * Whether a path is one of the web app's pages or /docs (src/plugins/web-app.ts), which answer
 * HTML; dot segments are resolved first, as inject and browsers do (`/edit-note/..` is `/`).
 */
function isWebPage(path: string): boolean {
  const resolved = new URL(path, 'http://service').pathname.replace(/\/+$/, '') || '/'
  return (APP_PAGES as readonly string[]).includes(resolved) || resolved === DOCS_PAGE
}

/** The route a path belongs to, or undefined for an unknown path. */
function routeOf(path: string): string | undefined {
  const p = path.replace(/\/+$/, '')
  const m =
    /^\/(create-account|login|get-user|add-note|get-all-notes|search-notes|edit-note|delete-note|update-note-pinned)(\/|$)/.exec(
      p,
    )
  return m ? `/${m[1]}` : undefined
}

export function contractProblems(seen: Seen): string[] {
  const { status, text } = seen
  if (!ALLOWED_STATUS.has(status)) return [`status ${status}`]
  // A password hash must never leave the server, whatever the request.
  if (text.includes('$argon2')) return ['a password hash in the response']
  if (seen.method === 'HEAD') return text === '' ? [] : ['HEAD answered with a body'] // no body to shape
  if (status === 401) {
    return text === 'Unauthorized' && /^text\/plain/.test(seen.contentType ?? '')
      ? []
      : ['401 is not plain "Unauthorized"']
  }
  if (seen.method === 'OPTIONS' && status === 204) return []
  if (status === 200 && isWebPage(seen.path) && /^text\/html/.test(seen.contentType ?? '')) return []
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return [`body is not JSON: ${text.slice(0, 100)}`]
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return ['body is not a JSON object']
  const b = body as Record<string, unknown>
  if (status === 200) {
    const route = routeOf(seen.path)
    return route ? successProblems(route, b) : ['200 on an unknown path']
  }
  if (typeof b.message !== 'string') return ['error without a message']
  if (sameKeys(b, ['error', 'message']) && b.error === true) return []
  const bare =
    status === 400 && sameKeys(b, ['message']) && ['Title is required', 'content is required'].includes(b.message)
  return bare && routeOf(seen.path) === '/add-note' ? [] : [`error shape ${text.slice(0, 200)}`]
}
