// What the Markdown reader finds in a note's text outside code: inline #tags, and the files it embeds or links to
// (Obsidian's ![[embeds]] and [[links]], Markdown's relative links), which become the note's attachments.
import { randomUUID } from 'node:crypto'
import { posix } from 'node:path'
import type { ArchiveEntry } from './archive.js'
import type { ImportedFile } from './items.js'

/** The archive's files by path, and by lowercased file name for Obsidian's links by name. */
export class VaultFiles {
  private readonly byPath = new Map<string, ArchiveEntry>()
  private readonly byName = new Map<string, string[]>()

  constructor(
    entries: ArchiveEntry[],
    /** The vault's folder in the archive ('' or `Folder/`): where Obsidian's paths start. */
    readonly root: string,
  ) {
    for (const entry of entries) {
      this.byPath.set(entry.path, entry)
      const name = posix.basename(entry.path).toLowerCase()
      const list = this.byName.get(name)
      if (list) list.push(entry.path)
      else this.byName.set(name, [entry.path])
    }
    // Obsidian takes the shortest path among files of one name; the first in order among equally short ones.
    for (const list of this.byName.values()) list.sort((a, b) => a.length - b.length || (a < b ? -1 : 1))
  }

  get(path: string): ArchiveEntry | undefined {
    return this.byPath.get(path)
  }

  /** `target` relative to `folder`, inside the archive, or undefined. */
  private relative(folder: string, target: string): string | undefined {
    const joined = posix.normalize(posix.join(folder, target))
    return joined.startsWith('../') || joined === '..' || joined.startsWith('/') ? undefined : joined
  }

  /** A Markdown link's target: relative to the note, else to the vault's root. */
  resolveLink(notePath: string, target: string): string | undefined {
    for (const folder of [posix.dirname(notePath), this.root || '.']) {
      const path = this.relative(folder, target)
      if (path !== undefined && this.byPath.has(path)) return path
    }
    return undefined
  }

  /** An Obsidian link's target: a path from the vault's root or the note, else the shortest path by file name. */
  resolveWikiLink(notePath: string, target: string): string | undefined {
    const direct = this.resolveLink(notePath, target)
    if (direct !== undefined) return direct
    const name = posix.basename(target).toLowerCase()
    const suffix = `/${target.toLowerCase()}`
    return this.byName.get(name)?.find((path) => `/${path.toLowerCase()}`.endsWith(suffix))
  }
}

export const isMarkdownPath = (path: string): boolean => /\.(md|markdown)$/i.test(path)
const IMAGE = /\.(png|jpe?g|gif|webp|svg|bmp|avif|tiff?|ico|heic)$/i

// Fenced code blocks, then inline code spans: nothing inside them is a tag or a link.
const FENCE = /^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^ {0,3}\1[`~]*[ \t]*(?:\n|$)|(?![\s\S]))/gm
const CODE_SPAN = /(?<!`)(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g

/** `text` with `change` applied to every part outside code. */
export function outsideCode(text: string, change: (part: string) => string): string {
  const inSpans = (part: string) => splitApply(part, CODE_SPAN, change)
  return splitApply(text, FENCE, inSpans)
}

function splitApply(text: string, code: RegExp, change: (part: string) => string): string {
  let out = ''
  let last = 0
  for (const match of text.matchAll(code)) {
    out += change(text.slice(last, match.index)) + match[0]
    last = match.index + match[0].length
  }
  return out + change(text.slice(last))
}

/** Obsidian's tags: `#` after a space or a line's start, letters, digits, `_`, `-`, `/`, not only digits. */
const INLINE_TAG = /(?<=^|\s)#([\p{L}\p{M}\p{N}_\-/]+)/gu

export function inlineTags(text: string): string[] {
  const tags: string[] = []
  outsideCode(text, (part) => {
    for (const match of part.matchAll(INLINE_TAG)) {
      const tag = (match[1] ?? '').replace(/\/+$/, '')
      if (/[^\d/]/u.test(tag)) tags.push(tag)
    }
    return part
  })
  return tags
}

const WIKI_LINK = /(!?)\[\[([^[\]\n]+)\]\]/g
const MARKDOWN_LINK =
  /(!?\[(?:[^[\]\n]|\[[^[\]\n]*\])*\]\([ \t]*)(<[^<>\n]*>|[^\s()<>]+(?:\([^\s()<>]*\)[^\s()<>]*)*)((?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'))?[ \t]*\))/g

const escapeLinkText = (text: string) => text.replace(/([[\]\\])/g, '\\$1')

function decoded(target: string): string[] {
  try {
    const plain = decodeURIComponent(target)
    return plain === target ? [target] : [plain, target]
  } catch {
    return [target]
  }
}

/**
 * `content` with its links to files of the archive replaced by `ref` tokens, and those files. A link to a Markdown
 * note, to a URL, or to a file the archive lacks stays as it is.
 */
export function linkFiles(
  content: string,
  notePath: string,
  vault: VaultFiles,
): { content: string; files: ImportedFile[] } {
  const files = new Map<string, ImportedFile>()
  const batch = randomUUID()
  const refOf = (path: string): string => {
    let file = files.get(path)
    if (!file) {
      const entry = vault.get(path)
      if (!entry) throw new Error(`no entry ${path}`)
      // The trailing `-ref` keeps one token from being the start of another (`-1` and `-10`).
      file = { ref: `import-${batch}-${files.size + 1}-ref`, name: posix.basename(path), open: () => entry.open() }
      files.set(path, file)
    }
    return file.ref
  }
  const isFile = (path: string | undefined): path is string => path !== undefined && !isMarkdownPath(path)

  const changed = outsideCode(content, (part) =>
    part
      .replace(WIKI_LINK, (all, bang: string, inner: string) => {
        const [target = '', alias] = inner.split('|')
        const pathPart = (target.split('#')[0] ?? '').trim()
        if (pathPart === '' || !/\.[^./]+$/.test(pathPart) || isMarkdownPath(pathPart)) return all
        const path = vault.resolveWikiLink(notePath, pathPart)
        if (!isFile(path)) return all
        const name = posix.basename(path)
        if (bang && IMAGE.test(path)) return `![${escapeLinkText(name)}](${refOf(path)})`
        const text = !bang && alias !== undefined && alias.trim() !== '' ? alias.trim() : name
        return `[${escapeLinkText(text)}](${refOf(path)})`
      })
      .replace(MARKDOWN_LINK, (all, before: string, rawTarget: string, after: string) => {
        const target = rawTarget.startsWith('<') ? rawTarget.slice(1, -1) : rawTarget
        if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#') || target.startsWith('/')) return all
        const bare = target.replace(/[?#].*$/, '')
        if (bare === '') return all
        for (const candidate of decoded(bare)) {
          const path = vault.resolveLink(notePath, candidate)
          if (isFile(path)) return `${before}${refOf(path)}${after}`
        }
        return all
      }),
  )
  return { content: changed, files: [...files.values()] }
}
