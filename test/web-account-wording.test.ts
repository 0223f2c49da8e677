// The account page's wording (web/src/components/account/describe.ts): the name a session's
// User-Agent gets, how long ago it was used (never more precise than the API's 5 minutes), and
// what confirms deleting the account.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { confirms, describeClient, lastActive } from '../web/src/components/account/describe.js'

describe('describeClient', () => {
  const cases: Array<[string, string]> = [
    [
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36',
      'Chrome on Linux',
    ],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
      'Edge on Windows',
    ],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0', 'Firefox on Windows'],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
      'Safari on iOS',
    ],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
      'Safari on macOS',
    ],
    [
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
      'Chrome on Android',
    ],
    ['curl/8.5.0', 'curl/8.5.0'],
    ['node', 'node'],
    ['  ', 'Unknown client'],
    ['', 'Unknown client'],
  ]
  for (const [ua, name] of cases)
    it(`${JSON.stringify(ua.slice(0, 40))} is ${name}`, () => assert.equal(describeClient(ua), name))

  it('names every client with something not empty', () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }), (ua) => describeClient(ua).length > 0))
  })
})

describe('lastActive', () => {
  const now = Date.parse('2026-03-10T12:00:00Z')
  const ago = (ms: number) => new Date(now - ms).toISOString()
  it('says no more than "in the last 5 minutes" for anything under 5 minutes (and a clock ahead of ours)', () => {
    for (const ms of [0, 1000, 4 * 60_000 + 59_000, -60_000])
      assert.equal(lastActive(ago(ms), now), 'in the last 5 minutes')
  })
  it('counts minutes, then hours, then days', () => {
    assert.match(lastActive(ago(5 * 60_000), now), /5 minutes ago/)
    assert.match(lastActive(ago(3 * 3_600_000), now), /3 hours ago/)
    assert.match(lastActive(ago(26 * 3_600_000), now), /yesterday/)
    assert.match(lastActive(ago(10 * 86_400_000), now), /10 days ago/)
  })
})

describe('confirms (deleting the account)', () => {
  it('takes DELETE, or the email in any case with spaces around', () => {
    assert.ok(confirms('DELETE', 'ada@example.com'))
    assert.ok(confirms(' Ada@Example.COM ', 'ada@example.com'))
  })
  it('refuses anything else', () => {
    for (const typed of ['', ' ', 'delete', 'DELETE!', 'ada@example', 'ada@example.com.'])
      assert.equal(confirms(typed, 'ada@example.com'), false, typed)
    fc.assert(
      fc.property(
        fc.string(),
        (typed) =>
          confirms(typed, 'ada@example.com') ===
          (typed.trim() === 'DELETE' || typed.trim().toLowerCase() === 'ada@example.com'),
      ),
    )
  })
})
