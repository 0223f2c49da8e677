// Evernote's note body (ENML, an XHTML document rooted at <en-note>) as Markdown: turndown for the HTML, and rules
// for Evernote's own elements (en-media, en-todo, en-crypt, checklists) and for simple tables.
import TurndownService from 'turndown'

/** What an `<en-media hash>` points to: the file's ref in the note and its name. */
export interface MediaLink {
  ref: string
  name: string
  mime: string
}

export const ENCRYPTED_PLACEHOLDER = '_(encrypted text was not imported)_'
export const MISSING_MEDIA_PLACEHOLDER = '_(an attachment missing from the export)_'

/** Elements HTML knows as empty; any other self-closing tag is opened and closed, as XML means it. */
const VOID_ELEMENTS = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'source',
  'track',
  'wbr',
])

const ATTRIBUTES = `((?:\\s+[^\\s=/>]+\\s*=\\s*(?:"[^"]*"|'[^']*'))*)`
const SELF_CLOSING = new RegExp(`<([A-Za-z][\\w:.-]*)${ATTRIBUTES}\\s*/>`, 'g')
const EMPTY_EVERNOTE_TAG = new RegExp(`<(en-media|en-todo)${ATTRIBUTES}\\s*/?>`, 'gi')

/**
 * ENML's XML-only syntax in a form an HTML parser reads the same way: no prolog, no self-closing custom tags.
 * en-media and en-todo become void <img> elements marked by a data attribute: turndown would drop them as blank.
 */
function asHtml(enml: string): string {
  return enml
    .replace(/^\uFEFF?\s*<\?xml[^>]*\?>/, '')
    .replace(/^\s*<!DOCTYPE[^>[]*>/i, '')
    .replace(
      EMPTY_EVERNOTE_TAG,
      (_whole, name: string, attributes: string) => `<img data-${name.toLowerCase()}=""${attributes}>`,
    )
    .replace(/<\/(en-media|en-todo)\s*>/gi, '')
    .replace(SELF_CLOSING, (whole, name: string, attributes: string) =>
      VOID_ELEMENTS.has(name.toLowerCase()) ? whole : `<${name}${attributes}></${name}>`,
    )
}

/** Markdown link text: brackets and backslashes escaped. */
export function linkText(text: string): string {
  return text.replace(/[\\[\]]/g, (c) => `\\${c}`)
}

/** The Markdown that shows a file: an image inline, anything else as a link. */
export function fileLink(link: MediaLink): string {
  const text = linkText(link.name)
  return link.mime.startsWith('image/') ? `![${text}](${link.ref})` : `[${text}](${link.ref})`
}

/** The part of domino's DOM the rules use (the project's TypeScript has no DOM types). */
interface DomElement {
  nodeName: string
  parentNode: DomElement | null
  nextSibling: DomElement | null
  getAttribute(name: string): string | null
  querySelector(selector: string): DomElement | null
  querySelectorAll(selector: string): { length: number }
}

function dom(node: unknown): DomElement {
  return node as DomElement
}

function attribute(node: unknown, name: string): string {
  return dom(node).getAttribute(name) ?? ''
}

function closest(node: unknown, name: string): DomElement | undefined {
  for (let parent = dom(node).parentNode; parent; parent = parent.parentNode)
    if (parent.nodeName === name) return parent
  return undefined
}

function isChecklistItem(node: unknown): boolean {
  const list = dom(node).parentNode
  return dom(node).nodeName === 'LI' && list !== null && /--en-todo\s*:\s*true/.test(attribute(list, 'style'))
}

function tableCellText(content: string): string {
  return content.trim().replace(/\n+/g, ' ').replace(/\|/g, '\\|')
}

/** The Evernote element a node stands for: en-media and en-todo as asHtml marks them, en-crypt as it is. */
function evernoteKind(node: unknown): string | undefined {
  const element = dom(node)
  if (element.nodeName === 'EN-CRYPT') return 'en-crypt'
  if (element.nodeName !== 'IMG') return undefined
  if (element.getAttribute('data-en-media') !== null) return 'en-media'
  return element.getAttribute('data-en-todo') !== null ? 'en-todo' : undefined
}

/** Evernote's elements as Markdown; an empty en-crypt is blank to turndown, so its blank rule asks here too. */
function evernoteElements(
  media: ReadonlyMap<string, MediaLink>,
): Record<string, (content: string, node: unknown) => string> {
  return {
    'en-media': (_content, node) => {
      const link = media.get(attribute(node, 'hash').toLowerCase())
      return link ? fileLink(link) : MISSING_MEDIA_PLACEHOLDER
    },
    'en-todo': (content, node) => {
      const box = attribute(node, 'checked') === 'true' ? '[x] ' : '[ ] '
      return (closest(node, 'LI') ? box : `- ${box}`) + content
    },
    'en-crypt': () => ENCRYPTED_PLACEHOLDER,
  }
}

function turndownFor(media: ReadonlyMap<string, MediaLink>): TurndownService {
  const own = evernoteElements(media)
  const service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    blankReplacement: (content, node) => {
      const kind = evernoteKind(node)
      if (kind) return (own[kind] as (content: string, node: unknown) => string)(content, node)
      return (node as unknown as { isBlock: boolean }).isBlock ? '\n\n' : ''
    },
  })
  for (const [name, replacement] of Object.entries(own))
    service.addRule(name, { filter: (node) => evernoteKind(node) === name, replacement })
  service.addRule('checklist-item', {
    filter: (node) => isChecklistItem(node),
    replacement: (content, node) => {
      const box = /--en-checked\s*:\s*true/.test(attribute(node, 'style')) ? '[x] ' : '[ ] '
      const body = content.replace(/^\n+/, '').replace(/\n+$/, '').replace(/\n/gm, '\n    ')
      return `- ${box}${body}${dom(node).nextSibling ? '\n' : ''}`
    },
  })
  service.addRule('table-cell', {
    filter: ['th', 'td'],
    replacement: (content) => ` ${tableCellText(content)} |`,
  })
  service.addRule('table-row', {
    filter: 'tr',
    replacement: (content, node) => {
      const first = closest(node, 'TABLE')?.querySelector('tr') === dom(node)
      const cells = dom(node).querySelectorAll('th, td').length
      const rule = first ? `\n|${' --- |'.repeat(Math.max(1, cells))}` : ''
      return `|${content}${rule}\n`
    },
  })
  service.addRule('table-section', {
    filter: ['thead', 'tbody', 'tfoot'],
    replacement: (content) => content,
  })
  service.addRule('table', {
    filter: 'table',
    replacement: (content) => `\n\n${content.trim()}\n\n`,
  })
  return service
}

/** The Markdown of a note's ENML; `media` maps en-media hashes (lowercase MD5 hex) to the note's files. */
export function enmlToMarkdown(enml: string, media: ReadonlyMap<string, MediaLink>): string {
  const html = asHtml(enml)
  if (html.trim() === '') return ''
  return turndownFor(media).turndown(html).trim()
}
