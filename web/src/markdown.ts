// Notes' content is Markdown, written by anyone who has the account's token, so it is rendered as
// untrusted input, in three layers:
// - HTML typed into a note is shown as the text it is (marked's html renderer escapes it), as in
//   other note apps: `<script>` or `<img onerror=...>` reads as written and never becomes a tag;
// - DOMPurify then keeps only inert HTML of what marked made (no script, no event handler, no
//   javascript: URL, no SVG or MathML, no style, no form), returned as DOM nodes, never as an
//   HTML string;
// - the page's CSP and Trusted Types (plugins/web-app.ts) stop whatever would still get through:
//   DOMPurify's own policy is the only way HTML reaches the DOM at all.
// https://github.com/cure53/DOMPurify#what-does-it-do
// Links and pictures under `/attachments/` (the account's files) are found in what DOMPurify
// returned, never before: each becomes a slot holding its label as text and the path as data,
// with no URL the browser would load; the attachments' chunk checks the path (attachments/links.ts)
// and fills the slot with the picture or the file's chip, fetched with the token.
import DOMPurify, { type Config } from 'dompurify'
import { Marked } from 'marked'
import { MARKS_PER_CARD, matchRanges, segments } from './highlight'

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c)

const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    html: ({ text }) => escapeHtml(text),
  },
})

const PURIFY_CONFIG: Config & { RETURN_DOM_FRAGMENT: true } = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'option', 'dialog', 'details'],
  FORBID_ATTR: ['style', 'class', 'id', 'name', 'srcset', 'tabindex', 'autofocus'],
  ALLOW_DATA_ATTR: false,
  RETURN_DOM_FRAGMENT: true,
}

// Links open elsewhere, without telling the target where they came from.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.nodeName === 'A' && node.hasAttribute('href')) {
    node.setAttribute('target', '_blank')
    node.setAttribute('rel', 'noopener noreferrer nofollow')
  }
})

/**
 * Images are not loaded from other hosts (the page's CSP allows this origin, data: and the app's
 * own blob: URLs only, so a note cannot carry a tracking pixel): an embedded data: image stays, an
 * attachment becomes its slot (as does a link to one: the file's chip), an http(s) image becomes
 * a link to it, anything else becomes its alternative text.
 */
function replaceImages(fragment: DocumentFragment): void {
  for (const link of Array.from(fragment.querySelectorAll('a[href^="/attachments/"],img[src^="/attachments/"]'))) {
    const slot = document.createElement('span')
    slot.dataset.attachment = link.getAttribute('href') ?? link.getAttribute('src') ?? ''
    slot.dataset.kind = link.tagName
    slot.textContent = link.textContent || link.getAttribute('alt') || 'file'
    link.replaceWith(slot)
  }
  for (const img of Array.from(fragment.querySelectorAll('img'))) {
    const src = img.getAttribute('src') ?? ''
    if (/^data:image\//i.test(src)) continue
    const label = img.getAttribute('alt') || img.getAttribute('title') || 'image'
    let replacement: Node = document.createTextNode(label)
    if (/^https?:\/\//i.test(src)) {
      const link = document.createElement('a')
      link.href = src
      link.target = '_blank'
      link.rel = 'noopener noreferrer nofollow'
      link.textContent = `🖼 ${label}`
      replacement = link
    }
    img.replaceWith(replacement)
  }
}

const cache = new Map<string, DocumentFragment>()
const CACHE_ENTRIES = 600

/** Whether renderMarkdown has this content at hand (cached), so showing it costs next to nothing. */
export function isRendered(source: string): boolean {
  return cache.has(source)
}

/** The sanitised DOM of a note's content; a fresh copy each call (callers may change it). */
export function renderMarkdown(source: string): DocumentFragment {
  let template = cache.get(source)
  if (!template) {
    const html = marked.parse(source, { async: false })
    template = DOMPurify.sanitize(html, PURIFY_CONFIG)
    replaceImages(template)
    if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value as string)
    cache.set(source, template)
  }
  return template.cloneNode(true) as DocumentFragment
}

/**
 * Wraps the matches of `expression` inside each text node of `root` in a <mark>, at most
 * `maxMarks` in all. The marks' text is set as text: nothing of the note or the pattern is parsed.
 */
export function highlightIn(root: Node, expression: RegExp | undefined, maxMarks = MARKS_PER_CARD): void {
  if (!expression) return
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT)
  const texts: Text[] = []
  for (let node = walker.nextNode(); node; node = walker.nextNode()) texts.push(node as Text)
  let left = maxMarks
  for (const text of texts) {
    if (left <= 0) break
    const ranges = matchRanges(text.data, expression, left)
    if (ranges.length === 0) continue
    left -= ranges.length
    const pieces = document.createDocumentFragment()
    for (const piece of segments(text.data, ranges)) {
      if (!piece.marked) {
        pieces.append(piece.text)
        continue
      }
      const mark = document.createElement('mark')
      mark.textContent = piece.text
      pieces.append(mark)
    }
    text.replaceWith(pieces)
  }
}

/**
 * The start of a note's content, as much as a card can show: a card is a few lines high, and a
 * note may hold 100 000 characters, which would take longer to render than a frame lasts.
 */
export function preview(source: string, length = 1200): string {
  if (source.length <= length) return source
  const cut = source.lastIndexOf('\n', length)
  return source.slice(0, cut > length / 2 ? cut : length)
}

/** The text a person reads from the start of a note's content (for one-line excerpts). */
export function plainText(source: string): string {
  return (renderMarkdown(preview(source, 400)).textContent ?? '').replace(/\s+/g, ' ').trim()
}
