// The first listing is requested as soon as the page's script runs, before React and the rest of
// the app are evaluated and render, so that it travels while they start instead of after
// (docs/web-app.md, "Measured"). main.tsx imports this module first for that reason. Only on the
// notes page, only with a stored token, and only when this device holds no replica of the notes;
// the notes page takes it once, for that token.
import { send } from './api'
import { loadToken } from './storage'

let early: { token: string; response: Promise<Response> } | undefined
const token = location.pathname === '/' ? loadToken() : null
// With a replica on this device the notes show from it (sync/engine.ts), whose chunk starts
// loading now instead.
const replica = (() => {
  try {
    return localStorage.getItem('notes-service.replica') !== null
  } catch {
    return false
  }
})()
if (token && replica) {
  void import('./sync/engine').catch(() => undefined)
} else if (token) {
  early = { token, response: send('GET', '/get-all-notes', { token }) }
  // Read or not, its failure is the notes page's to report, never an unhandled rejection.
  early.response.catch(() => {})
}

/** The listing requested at start with `token`, once; undefined after that, or for another token. */
export function takeEarlyListing(token: string): Promise<Response> | undefined {
  const taken = early?.token === token ? early.response : undefined
  early = undefined
  return taken
}
