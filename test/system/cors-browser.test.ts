// A page on another origin uses the whole API from Chromium: a tiny node:http server on
// a port of its own serves an HTML page, and that page's `fetch` calls, with a bearer token and a
// JSON body, go to the notes service. The browser enforces CORS itself (preflights for PUT,
// DELETE, Authorization and JSON bodies), so each step passes only if the service's CORS answers
// let it; each step's result, and what a later list returns, is checked. SQLite always,
// PostgreSQL when it can be reached.
import assert from 'node:assert/strict'
import { type Server, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { launchChromium } from '../support/browser.js'
import { type Harness, type NoteBody, startHarness, uniqueEmail } from '../support/harness.js'
import { storeKinds } from '../support/stores.js'

/** What the page answers for each call: the response as the page could read it, or the failure. */
interface PageReply {
  status?: number
  text?: string
  json?: unknown
  /** The TypeError a browser gives when CORS (or the network) refuses the request. */
  failed?: string
  pageOrigin: string
}

interface CrossOriginPage {
  call(base: string, method: string, path: string, token: string | undefined, body: unknown): Promise<PageReply>
  bigNote(contentLength: number): string
}

// The client a web app would write: fetch with a bearer token and a JSON body. A string body is
// sent as is (the over-limit note is built in the page, not carried over the DevTools protocol).
const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>cross-origin notes client</title></head><body>
<script>
  window.call = async (base, method, path, token, body) => {
    const headers = {}
    if (token) headers.authorization = 'Bearer ' + token
    if (body !== undefined) headers['content-type'] = 'application/json'
    try {
      const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) })
      const text = await res.text()
      let json
      try { json = JSON.parse(text) } catch {}
      return { status: res.status, text, json, pageOrigin: location.origin }
    } catch (err) {
      return { failed: String(err), pageOrigin: location.origin }
    }
  }
  window.bigNote = (n) => JSON.stringify({ title: 'too big', content: 'x'.repeat(n) })
</script>
</body></html>`

/** Serves PAGE at / on 127.0.0.1 and a port of its own: another origin than the service's. */
async function startPageServer(): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    if (request.url !== '/') return void response.writeHead(404).end()
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server }
}

let browser: Browser
let pageServer: { url: string; server: Server }
before(async () => {
  browser = await launchChromium()
  pageServer = await startPageServer()
})
after(async () => {
  await browser?.close()
  await new Promise((resolve) => pageServer?.server.close(resolve))
})

for (const storeKind of storeKinds()) {
  describe(`a page on another origin uses every endpoint in Chromium (${storeKind})`, () => {
    let h: Harness
    let api: string
    let page: Page
    const consoleLines: string[] = []
    before(async () => {
      h = await startHarness('http', { storeKind })
      api = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`
      page = await browser.newPage()
      page.on('console', (message) => consoleLines.push(message.text()))
      const loaded = await page.goto(pageServer.url, { waitUntil: 'load' })
      assert.equal(loaded?.status(), 200)
    })
    after(async () => {
      await page?.close()
      await h?.close()
    })

    /** One fetch from the page; fails the test with the browser's own words if it was refused. */
    async function call(
      method: string,
      path: string,
      token?: string,
      body?: unknown,
    ): Promise<PageReply & { status: number }> {
      const reply = await page.evaluate(
        ([base, m, p, t, b]) => (globalThis as unknown as CrossOriginPage).call(base, m, p, t, b),
        [api, method, path, token, body] as const,
      )
      assert.notEqual(new URL(api).origin, reply.pageOrigin, 'the page is on another origin than the service')
      assert.equal(
        reply.failed,
        undefined,
        `${method} ${path} refused by the browser: ${reply.failed}\n${consoleLines.join('\n')}`,
      )
      return reply as PageReply & { status: number }
    }

    const notes = async (token: string) => {
      const list = await call('GET', '/get-all-notes', token)
      assert.equal(list.status, 200, list.text)
      return (list.json as { notes: NoteBody[] }).notes
    }

    it('creates an account, adds, edits, pins, unpins, searches, lists and deletes notes', async () => {
      const email = uniqueEmail('browser')
      const created = await call('POST', '/create-account', undefined, {
        fullName: 'Browser User',
        email,
        password: 'correct horse battery staple',
      })
      assert.equal(created.status, 200, created.text)
      const token = (created.json as { accessToken: string }).accessToken
      assert.equal(typeof token, 'string')

      const login = await call('POST', '/login', undefined, { email, password: 'correct horse battery staple' })
      assert.equal(login.status, 200, login.text)
      const user = await call('GET', '/get-user', token)
      assert.equal(user.status, 200, user.text)
      assert.equal((user.json as { user: { email: string } }).user.email, email)

      const addA = await call('POST', '/add-note', token, {
        title: 'Groceries',
        content: 'milk and eggs',
        tags: ['home'],
      })
      assert.equal(addA.status, 200, addA.text)
      const a = (addA.json as { note: NoteBody }).note
      const addB = await call('POST', '/add-note', token, { title: 'Trip', content: 'pack the bags' })
      assert.equal(addB.status, 200, addB.text)
      const b = (addB.json as { note: NoteBody }).note

      const edited = await call('PUT', `/edit-note/${a._id}`, token, {
        title: 'Groceries for Sunday',
        tags: ['home', 'weekend'],
      })
      assert.equal(edited.status, 200, edited.text)
      assert.equal((edited.json as { note: NoteBody }).note.title, 'Groceries for Sunday')

      const pinned = await call('PUT', `/update-note-pinned/${b._id}`, token, { isPinned: true })
      assert.equal(pinned.status, 200, pinned.text)
      assert.equal((pinned.json as { note: NoteBody }).note.isPinned, true)
      let listed = await notes(token)
      assert.deepEqual(
        listed.map((n) => [n._id, n.isPinned]),
        [
          [b._id, true],
          [a._id, false],
        ],
        'pinned note first',
      )
      assert.equal(listed[1]?.title, 'Groceries for Sunday', 'the edit is stored')
      assert.deepEqual(listed[1]?.tags, ['home', 'weekend'])

      // A is older than B, so once B is unpinned A stays second (newest first).
      const pinnedA = await call('PUT', `/update-note-pinned/${a._id}`, token, { isPinned: true })
      assert.equal(pinnedA.status, 200, pinnedA.text)
      const unpinned = await call('PUT', `/update-note-pinned/${b._id}`, token, { isPinned: false })
      assert.equal(unpinned.status, 200, unpinned.text)
      assert.equal((unpinned.json as { note: NoteBody }).note.isPinned, false)
      listed = await notes(token)
      assert.deepEqual(
        listed.map((n) => [n._id, n.isPinned]),
        [
          [a._id, true],
          [b._id, false],
        ],
        'the pin moved to A',
      )

      const found = await call('GET', `/search-notes?query=${encodeURIComponent('sunday')}`, token)
      assert.equal(found.status, 200, found.text)
      assert.deepEqual(
        (found.json as { notes: NoteBody[] }).notes.map((n) => n._id),
        [a._id],
      )

      const deleted = await call('DELETE', `/delete-note/${a._id}`, token)
      assert.equal(deleted.status, 200, deleted.text)
      assert.equal((deleted.json as { note: NoteBody }).note._id, a._id)
      assert.deepEqual(
        (await notes(token)).map((n) => n._id),
        [b._id],
        'the deleted note is gone',
      )
      const searchedAgain = await call('GET', '/search-notes?query=sunday', token)
      assert.deepEqual((searchedAgain.json as { notes: unknown[] }).notes, [])
    })

    it('reads error answers too: 401, 404 and the 413 of an over-limit note', async () => {
      const denied = await call('GET', '/get-all-notes')
      assert.equal(denied.status, 401)
      assert.equal(denied.text, 'Unauthorized')

      const created = await call('POST', '/create-account', undefined, {
        fullName: 'Browser User',
        email: uniqueEmail('browser'),
        password: 'pw',
      })
      const token = (created.json as { accessToken: string }).accessToken
      const missing = await call('DELETE', '/delete-note/0123456789abcdef01234567', token)
      assert.equal(missing.status, 404)
      assert.deepEqual(missing.json, { error: true, message: 'Note not found' })

      for (let i = 0; i < 3; i++) {
        const big = await page.evaluate(
          ([base, t]) => {
            const p = globalThis as unknown as CrossOriginPage
            return p.call(base, 'POST', '/add-note', t, p.bigNote(2_000_000))
          },
          [api, token] as const,
        )
        assert.equal(big.failed, undefined, `the 2 MB note (try ${i + 1}) got no answer: ${big.failed}`)
        assert.equal(big.status, 413)
        assert.deepEqual(big.json, { error: true, message: 'Request body is too large' })
      }
    })
  })
}
