// The trash, a note's history and the conflict choice, in Debian's Chromium against the real
// service (as `npm start` runs it), on SQLite and on PostgreSQL: a delete's Undo, restoring and
// deleting forever from the trash, emptying it after a confirmation, the history's diff and its
// restore, and what the app does when a note changed elsewhere since the page read it (a second
// edit made through the API between opening the editor and saving, or before a pin or a delete).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { BrowserContext, Page } from 'playwright-core'
import { type PageRecord, openPage } from '../support/browser.js'
import { eventually } from '../support/eventually.js'
import type { PageWindow } from '../support/page-globals.js'
import { uniqueEmail } from '../support/harness.js'
import { storeKinds } from '../support/stores.js'
import { VIEWPORTS, type WebServer, startWebServer } from '../support/web.js'
import { apiCall, assertClean, holdLiveUpdates, signUp, suiteChromium, tokenOf } from '../support/web-flows.js'

interface ApiNote {
  _id: string
  title: string
  content: string
  tags: string[]
  isPinned: boolean
  updatedOn: string
}

const card = (page: Page, title: string) =>
  page.locator('article.note', { has: page.getByRole('heading', { name: title, exact: true }) })

describe('the trash, the history and the conflict choice in a browser', () => {
  const browser = suiteChromium()

  for (const storeKind of storeKinds()) {
    describe(`on ${storeKind}`, () => {
      let server: WebServer
      let context: BrowserContext
      let page: Page
      let record: PageRecord
      let token: string

      const call = async (method: string, path: string, body?: unknown) => {
        const answer = await apiCall(server.base, token, method, path, body)
        assert.ok(answer.status < 300, `${method} ${path}: ${answer.status} ${JSON.stringify(answer.json)}`)
        return answer.json as Record<string, unknown>
      }
      const add = async (title: string, content: string, tags: string[] = []) =>
        (await call('POST', '/add-note', { title, content, tags })).note as ApiNote
      const edit = async (id: string, fields: Partial<ApiNote>) =>
        (await call('PUT', `/edit-note/${id}`, fields)).note as ApiNote
      const notes = async () => (await call('GET', '/get-all-notes')).notes as ApiNote[]
      const trash = async () => (await call('GET', '/get-trash')).notes as ApiNote[]

      before(async () => {
        server = await startWebServer(storeKind)
        ;({ context, page, record } = await openPage(browser(), { ...VIEWPORTS.desktop, colorScheme: 'light' }))
        await signUp(page, server.base, 'Ada Lovelace', uniqueEmail(`web-trash-${storeKind}`))
        token = (await tokenOf(page))!
      })
      after(async () => {
        await context?.close()
        await server?.close()
      })

      it('lists the trash with when each note was deleted, restores, deletes forever and empties it only once confirmed', async () => {
        for (const title of ['Old plan', 'Draft letter', 'Shopping'])
          await call('DELETE', `/delete-note/${(await add(title, `${title} text`))._id}`)
        await page.goto(`${server.base}/`)
        await page.getByRole('link', { name: 'Trash', exact: true }).click()
        await page.waitForURL(`${server.base}/trash`)
        await page.getByRole('heading', { name: 'Trash', level: 1 }).waitFor()
        const items = page.getByRole('list', { name: 'Trash' }).getByRole('listitem')
        await items.nth(2).waitFor()
        // Most recently deleted first, each saying when.
        assert.deepEqual(await items.getByRole('heading').allInnerTexts(), ['Shopping', 'Draft letter', 'Old plan'])
        assert.deepEqual(await items.locator('.trash-when').allInnerTexts(), [
          'Deleted just now',
          'Deleted just now',
          'Deleted just now',
        ])

        await page.getByRole('button', { name: 'Restore “Old plan”' }).click()
        await page.getByRole('status').filter({ hasText: 'Restored “Old plan”' }).waitFor()
        await items.nth(1).waitFor()
        assert.equal(await items.count(), 2)
        assert.ok(
          (await notes()).some((n) => n.title === 'Old plan'),
          'restored on the server',
        )

        // Delete forever asks first; Cancel keeps the note.
        await page.getByRole('button', { name: 'Delete forever “Draft letter”' }).click()
        const ask = page.getByRole('alertdialog', { name: 'Delete “Draft letter” forever?' })
        await ask.waitFor()
        assert.equal(
          await page.evaluate(() => (globalThis as unknown as PageWindow).document.activeElement?.textContent),
          'Cancel',
          'the safe answer has the focus',
        )
        await ask.getByRole('button', { name: 'Cancel' }).click()
        await ask.waitFor({ state: 'detached' })
        assert.ok(
          (await trash()).some((n) => n.title === 'Draft letter'),
          'still in the trash',
        )
        await page.getByRole('button', { name: 'Delete forever “Draft letter”' }).click()
        await ask.getByRole('button', { name: 'Delete forever' }).click()
        await page.getByRole('status').filter({ hasText: 'Deleted “Draft letter” forever' }).waitFor()
        assert.deepEqual(await items.getByRole('heading').allInnerTexts(), ['Shopping'])
        assert.ok(!(await trash()).some((n) => n.title === 'Draft letter'))
        assert.ok(!(await notes()).some((n) => n.title === 'Draft letter'))

        // Read again when the page is shown again; emptying asks first, and Esc is a no.
        await call('DELETE', `/delete-note/${(await add('Receipt', 'paid'))._id}`)
        await page.getByRole('link', { name: '← Back to your notes' }).click()
        await page.getByRole('link', { name: 'Trash', exact: true }).click()
        await items.nth(1).waitFor()
        await page.getByRole('button', { name: 'Empty trash' }).click()
        const empty = page.getByRole('alertdialog', { name: 'Empty the trash?' })
        assert.equal(
          await empty.getByText('All 2 notes in the trash will be deleted forever. This cannot be undone.').count(),
          1,
        )
        await page.keyboard.press('Escape')
        await empty.waitFor({ state: 'detached' })
        assert.equal((await trash()).length, 2)
        await page.getByRole('button', { name: 'Empty trash' }).click()
        await empty.getByRole('button', { name: 'Empty trash' }).click()
        await page.getByText('The trash is empty').waitFor()
        await page.getByRole('status').filter({ hasText: 'Deleted 2 notes forever' }).waitFor()
        assert.deepEqual(await trash(), [])
        assert.equal(await page.getByRole('button', { name: 'Empty trash' }).count(), 0)
      })

      it('moves a deleted note to the trash with an Undo that restores it', async () => {
        await add('Undo me', 'still here')
        await page.goto(`${server.base}/`)
        await card(page, 'Undo me').getByRole('button', { name: 'Delete “Undo me”' }).click()
        await card(page, 'Undo me').waitFor({ state: 'detached' })
        await page.getByRole('status').filter({ hasText: 'Note moved to trash' }).waitFor()
        assert.deepEqual(
          (await trash()).map((n) => n.title),
          ['Undo me'],
        )
        await page.getByRole('button', { name: 'Undo' }).click()
        await card(page, 'Undo me').waitFor()
        await eventually('restored on the server', async () => (await notes()).some((n) => n.title === 'Undo me'))
        assert.deepEqual(await trash(), [])
      })

      it("shows a note's versions newest first, what changed after each, and restores one", async () => {
        const note = await add('Recipe', 'flour\nsugar\neggs\nbutter\nmilk\nsalt\nvanilla\nlemon', ['baking'])
        await edit(note._id, {
          content: 'flour\nbrown sugar\neggs\nbutter\nmilk\nsalt\nvanilla\nlemon',
          tags: ['baking', 'sweet'],
        })
        await edit(note._id, { title: 'Cake recipe' })
        await page.goto(`${server.base}/`)
        await card(page, 'Cake recipe').getByRole('button', { name: 'History of “Cake recipe”' }).click()
        const history = page.getByRole('dialog', { name: 'History of “Cake recipe”' })
        const versions = history.getByRole('list', { name: 'Versions, newest first' }).getByRole('button')
        await versions.nth(1).waitFor()
        assert.equal(await versions.count(), 2)
        assert.match(await versions.nth(0).innerText(), /Title changed$/)
        assert.match(await versions.nth(1).innerText(), /Content and tags changed$/)
        assert.equal(await versions.nth(0).getAttribute('aria-pressed'), 'true')
        // The newest version against the note as it is now: only the title changed.
        const diff = history.locator('.diff')
        assert.match(await history.getByText(/^What changed after it/).innerText(), /up to the note as it is now/)
        assert.deepEqual(await diff.locator('.diff-title del').allInnerTexts(), ['Recipe'])
        assert.deepEqual(await diff.locator('.diff-title ins').allInnerTexts(), ['Cake recipe'])
        assert.equal(await diff.getByText('Unchanged', { exact: true }).count(), 1, 'the content is unchanged')

        // The older one against the newer: a line and a tag, with the untouched lines folded.
        await versions.nth(1).click()
        assert.equal(await versions.nth(1).getAttribute('aria-pressed'), 'true')
        await diff.locator('.diff-lines del').waitFor()
        assert.deepEqual(await diff.locator('.diff-lines del').allInnerTexts(), ['sugar'])
        assert.deepEqual(await diff.locator('.diff-lines ins').allInnerTexts(), ['brown sugar'])
        assert.deepEqual(await diff.locator('.diff-tags ins').allInnerTexts(), ['sweet'])
        assert.deepEqual(await diff.locator('.diff-fold').allInnerTexts(), ['4 unchanged lines'])

        await history.getByRole('button', { name: 'Restore this version' }).click()
        await history.waitFor({ state: 'detached' })
        await page
          .getByRole('status')
          .filter({ hasText: /^Restored the version of / })
          .waitFor()
        await card(page, 'Recipe').waitFor()
        const restored = (await notes()).find((n) => n._id === note._id)!
        assert.deepEqual(
          [restored.title, restored.content, restored.tags],
          ['Recipe', 'flour\nsugar\neggs\nbutter\nmilk\nsalt\nvanilla\nlemon', ['baking']],
        )

        // From the editor too, over it: Esc closes the history and leaves the editor open.
        await card(page, 'Recipe').getByRole('button', { name: 'Recipe', exact: true }).click()
        const editor = page.getByRole('dialog', { name: 'Edit note' })
        await editor.getByRole('button', { name: 'History' }).click()
        const again = page.getByRole('dialog', { name: 'History of “Recipe”' })
        // Restoring made a version of its own: the state before it.
        await again.getByRole('list', { name: 'Versions, newest first' }).getByRole('button').nth(2).waitFor()
        await page.keyboard.press('Escape')
        await again.waitFor({ state: 'detached' })
        await editor.getByLabel('Title').waitFor()
        await page.keyboard.press('Escape')
        await editor.waitFor({ state: 'detached' })
      })

      /** Opens the note's editor, types `mine` as its content, edits it to `theirs` through the API, then saves. */
      async function meetConflict(note: ApiNote, mine: string, theirs: string) {
        await card(page, note.title).getByRole('button', { name: note.title, exact: true }).click()
        const editor = page.getByRole('dialog', { name: 'Edit note' })
        await editor.getByLabel('Content', { exact: true }).fill(mine)
        await edit(note._id, { content: theirs })
        await page.keyboard.press('Control+Enter')
        const choice = editor.getByRole('group', { name: 'Choose a version' })
        await choice.waitFor()
        assert.match(
          await editor.getByRole('alert').innerText(),
          /^This note was changed elsewhere \(.+\) while you were editing it\. Which version do you want to keep\?$/,
        )
        assert.equal(await choice.getByRole('region', { name: 'Your version' }).locator('pre').innerText(), mine)
        assert.equal(await choice.getByRole('region', { name: 'Saved elsewhere' }).locator('pre').innerText(), theirs)
        return { editor, choice }
      }

      it('on a note changed elsewhere while editing, shows both versions and keeps mine, theirs, or both', async () => {
        const note = await add('Shared', 'first')
        await page.goto(`${server.base}/`)

        const mine = await meetConflict(note, 'mine, one', 'theirs, one')
        await mine.choice.getByRole('button', { name: 'Keep mine' }).click()
        await mine.editor.waitFor({ state: 'detached' })
        assert.equal((await notes()).find((n) => n._id === note._id)?.content, 'mine, one')
        await card(page, 'Shared').getByText('mine, one').waitFor()

        const theirs = await meetConflict(note, 'mine, two', 'theirs, two')
        await theirs.choice.getByRole('button', { name: 'Keep theirs' }).click()
        await theirs.editor.waitFor({ state: 'detached' })
        assert.equal((await notes()).find((n) => n._id === note._id)?.content, 'theirs, two')
        await card(page, 'Shared').getByText('theirs, two').waitFor()

        const both = await meetConflict(note, 'mine, three', 'theirs, three')
        await both.choice.getByRole('button', { name: 'Keep both' }).click()
        await both.editor.waitFor({ state: 'detached' })
        const shared = (await notes()).filter((n) => n.title === 'Shared').map((n) => n.content)
        assert.deepEqual(shared.sort(), ['mine, three', 'theirs, three'])
        await card(page, 'Shared').nth(1).waitFor()
      })

      it('on a pin or a delete of a note changed elsewhere, changes nothing, shows the note as it is now and says so', async () => {
        const pinned = await add('Pin me', 'a')
        const deleted = await add('Delete me', 'b')
        await page.goto(`${server.base}/`)
        await card(page, 'Delete me').waitFor()
        // The page must not learn of the renames before it tries.
        const release = await holdLiveUpdates(page)
        await card(page, 'Delete me').waitFor()
        await edit(pinned._id, { title: 'Pin me, renamed' })
        await edit(deleted._id, { title: 'Delete me, renamed' })

        await card(page, 'Pin me').getByRole('button', { name: 'Pin “Pin me”' }).click()
        await page
          .getByRole('alert')
          .filter({ hasText: '“Pin me” was changed elsewhere, so it was not pinned. It shows the latest version now.' })
          .waitFor()
        await card(page, 'Pin me, renamed').waitFor()
        assert.equal(
          await card(page, 'Pin me, renamed')
            .getByRole('button', { name: 'Pin “Pin me, renamed”' })
            .getAttribute('aria-pressed'),
          'false',
        )
        assert.equal((await notes()).find((n) => n._id === pinned._id)?.isPinned, false)

        await card(page, 'Delete me').getByRole('button', { name: 'Delete “Delete me”' }).click()
        await page
          .getByRole('alert')
          .filter({
            hasText: '“Delete me” was changed elsewhere, so it was not deleted. It shows the latest version now.',
          })
          .waitFor()
        await card(page, 'Delete me, renamed').waitFor()
        assert.ok(
          (await notes()).some((n) => n._id === deleted._id),
          'not deleted on the server',
        )
        assert.deepEqual(await trash(), [])
        await release()
      })

      it('loaded nothing from another host, broke no CSP rule and threw nothing', () => {
        assertClean(record)
      })
    })
  }
})
