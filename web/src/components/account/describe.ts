// How the account page words a session: its client as a person names it ("Firefox on Windows"),
// when it signed in, and when it was last used, which the API knows to within 5 minutes only
// (docs/accounts.md: lastUsedOn is written when the stored value is 5 minutes old or older).
// And what confirms deleting the account.

const BROWSERS: Array<[RegExp, string]> = [
  [/\bEdgA?\//, 'Edge'],
  [/\bOPR\//, 'Opera'],
  [/\b(Firefox|FxiOS)\//, 'Firefox'],
  [/(Chrome|Chromium|CriOS)\//, 'Chrome'], // HeadlessChrome too
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
]

const SYSTEMS: Array<[RegExp, string]> = [
  [/\bAndroid\b/, 'Android'],
  [/\b(iPhone|iPad|iPod)\b/, 'iOS'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\b(Macintosh|Mac OS X)\b/, 'macOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bLinux\b/, 'Linux'],
]

/** "Chrome on Linux" for a browser's User-Agent; a program's first word ("curl/8.5.0") otherwise. */
export function describeClient(userAgent: string): string {
  const ua = userAgent.trim()
  if (!ua) return 'Unknown client'
  const browser = BROWSERS.find(([pattern]) => pattern.test(ua))?.[1]
  const system = SYSTEMS.find(([pattern]) => pattern.test(ua))?.[1]
  if (browser) return system ? `${browser} on ${system}` : browser
  return ua.split(/[\s(]/)[0] || ua
}

const TOUCH_INTERVAL_MS = 5 * 60_000

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' })

export const formatDateTime = (iso: string) => dateTime.format(new Date(iso))

/** "in the last 5 minutes", "3 hours ago", "yesterday"; never more precise than the API knows. */
export function lastActive(iso: string, now = Date.now()): string {
  const ago = now - new Date(iso).getTime()
  if (!(ago >= TOUCH_INTERVAL_MS)) return 'in the last 5 minutes'
  const minutes = Math.round(ago / 60_000)
  if (minutes < 60) return relative.format(-minutes, 'minute')
  const hours = Math.round(minutes / 60)
  if (hours < 24) return relative.format(-hours, 'hour')
  return relative.format(-Math.round(hours / 24), 'day')
}

/** Deleting is confirmed by DELETE, or by the account's email as login matches it (any case, spaces around). */
export function confirms(typed: string, email: string): boolean {
  const text = typed.trim()
  return text === 'DELETE' || (text !== '' && text.toLowerCase() === email.trim().toLowerCase())
}
