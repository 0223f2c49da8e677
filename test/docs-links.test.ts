// The documentation holds together: README.md stays a first screen (at most 250 lines) that links
// every docs/ file; every relative link in README.md, docs/*.md and bench/README.md stays inside
// the repository (a link that resolves outside its root fails, whether or not something is there)
// and reaches an existing file, and its #anchor an existing heading; every pointer from the code
// to a docs section (a page, then the heading's or bold lead-in's name in quotes) exists; every
// file path named in a comment exists; and the docs hold no dates or commit hashes (git keeps
// history).
//
// A file path in a comment is a token of the form `<dir>/<segments>.<ext>`, read from the
// repository's root: <dir> is one of src, test, web, bench, docs, scripts; each segment is made of
// letters, digits, `_`, `.` and `-`, separated by `/`; <ext> is ts, tsx, md, sh, json or css; the
// character before the token is not a letter, digit, `_`, `.`, `/` or `-` (so `dist/src/cli.js`
// and `../src/app.ts` are not read as `src/...`), and the one after it is not a letter, digit,
// `_`, `/` or `-`. Globs and placeholders (`test/**/*.test.ts`, `src/store/*/users.ts`) contain
// `*` and are not file paths. The files read are those of the code pointers below: src, test,
// bench, bin, scripts, web/src and .ci. A comment is a line whose text starts with `//`, `/*`,
// `*`, `#` (not `#!`) or `--`, every line of a `/* ... */` block, and what follows ` // ` or
// ` # ` after code on a line.
import assert from 'node:assert/strict'
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { describe, it } from 'node:test'

const ROOT = resolve(import.meta.dirname, '..')
const README_MAX_LINES = 250

const DOCS = readdirSync(join(ROOT, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`)
const PAGES = ['README.md', 'bench/README.md', ...DOCS]

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8')

/** The text without fenced code blocks and code spans: what is shown as links and prose. */
function withoutCode(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '')
}

/** GitHub's heading anchors: lower-cased, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  const text = markdown.replace(/^```[\s\S]*?^```/gm, '')
  for (const m of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = (m[1] as string)
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-')
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return anchors
}

/** What a pointer may name: the headings, and the bold lead-ins of paragraphs (`**The token.**`). */
function sectionsOf(markdown: string): Set<string> {
  const text = markdown.replace(/^```[\s\S]*?^```/gm, '')
  const headings = [...text.matchAll(/^#{1,6}\s+(.+?)\s*$/gm)].map((m) => m[1] as string)
  const leadIns = [...text.matchAll(/^(?:- )?\*\*([^*]+?)\.?\*\*/gm)].map((m) => m[1] as string)
  return new Set([...headings, ...leadIns].map((name) => name.toLowerCase()))
}

/** A name quoted in a comment, which may run over a line break and the comment's markers. */
const unwrapped = (quoted: string) => quoted.replace(/\s*\n\s*(?:\/\/|\*|#)?\s*/g, ' ').toLowerCase()

/** Inline links and images: [text](target) and ![alt](target), outside code. */
function linksOf(markdown: string): string[] {
  return [...withoutCode(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(
    (m) => m[1] as string,
  )
}

/** Files of the repository that may point at docs sections (comments, usage texts, scripts). */
function codeFiles(dir: string): string[] {
  if (!existsSync(join(ROOT, dir))) return []
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'fixtures' ? [] : codeFiles(path)
    return /\.(ts|tsx|js|sh|css|html)$/.test(entry.name) ? [path] : []
  })
}

describe('README.md', () => {
  it(`has at most ${README_MAX_LINES} lines`, () => {
    const lines = read('README.md').split('\n').length - 1
    assert.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines; move detail into docs/`)
  })

  it('links every docs/ page', () => {
    const linked = new Set(linksOf(read('README.md')).map((link) => link.split('#')[0]))
    assert.deepEqual(
      DOCS.filter((doc) => !linked.has(doc)),
      [],
    )
  })
})

describe('links in README.md, bench/README.md and docs/', () => {
  for (const page of PAGES) {
    it(`${page}: every relative link reaches a file, and its anchor a heading`, () => {
      const broken: string[] = []
      for (const link of linksOf(read(page))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue // http:, https:, mailto:
        const [path = '', anchor] = link.split('#')
        const target = path === '' ? join(ROOT, page) : resolve(ROOT, dirname(page), decodeURIComponent(path))
        // Whatever lies beside one clone is missing from the next: a link must stay inside.
        const outside = relative(ROOT, target)
        if (outside === '..' || outside.startsWith(`..${sep}`) || isAbsolute(outside)) {
          broken.push(`${link}: leaves the repository`)
          continue
        }
        if (!existsSync(target)) {
          broken.push(`${link}: no such file`)
          continue
        }
        if (
          anchor &&
          target.endsWith('.md') &&
          statSync(target).isFile() &&
          !anchorsOf(readFileSync(target, 'utf8')).has(anchor)
        ) {
          broken.push(`${link}: no heading with that anchor`)
        }
      }
      assert.deepEqual(broken, [])
    })
  }
})

/** The comment lines of a source file, by the rule in this file's header. */
function commentsOf(text: string): string[] {
  const comments: string[] = []
  let inBlock = false
  for (const line of text.split('\n')) {
    const trimmed = line.trim()
    if (inBlock) {
      comments.push(line)
      if (line.includes('*/')) inBlock = false
    } else if (trimmed.startsWith('/*')) {
      comments.push(line)
      inBlock = !trimmed.slice(2).includes('*/')
    } else if (/^(?:\/\/|\*|--)/.test(trimmed) || (trimmed.startsWith('#') && !trimmed.startsWith('#!'))) {
      comments.push(line)
    } else {
      const trailing = /\s(?:\/\/|#)\s(.*)$/.exec(line)
      if (trailing) comments.push(trailing[1] as string)
    }
  }
  return comments
}

/** File paths named in a comment, by the rule in this file's header. */
const FILE_PATH =
  /(?<![\w./-])(?:src|test|web|bench|docs|scripts)\/[\w.-]+(?:\/[\w.-]+)*\.(?:ts|tsx|md|sh|json|css)(?![\w/-])/g

describe('pointers from the code to the docs', () => {
  const files = ['src', 'test', 'bench', 'bin', 'scripts', 'web/src', '.ci']
    .flatMap(codeFiles)
    .concat(['bin/notes-service', '.ci/run'])
    .filter((file) => file !== 'test/docs-links.test.ts')
  it('name files that exist', () => {
    const missing: string[] = []
    for (const file of files) {
      for (const comment of commentsOf(read(file))) {
        for (const [path] of comment.matchAll(FILE_PATH)) {
          if (!existsSync(join(ROOT, path))) missing.push(`${file}: ${path} does not exist`)
        }
      }
    }
    assert.deepEqual(missing, [])
  })
  it('name docs/ pages and headings that exist', () => {
    const broken: string[] = []
    for (const file of files) {
      const text = read(file)
      for (const m of text.matchAll(/\b(docs\/[\w-]+\.md)\b(?:,\s*(?:\/\/\s*|\*\s*|#\s*)?"([^"]+)")?/g)) {
        const [, page = '', heading] = m
        if (!existsSync(join(ROOT, page))) broken.push(`${file}: ${page} does not exist`)
        else if (heading && !sectionsOf(read(page)).has(unwrapped(heading)))
          broken.push(`${file}: ${page} has no section "${heading}"`)
      }
      // README keeps no sections to point at but its first screen: point at docs/ instead.
      for (const m of text.matchAll(/\bREADME\b[,\s]+"([^"]+)"/g)) {
        if (!sectionsOf(read('README.md')).has(unwrapped(m[1] as string)))
          broken.push(`${file}: README.md has no section "${m[1]}"`)
      }
    }
    assert.deepEqual(broken, [])
  })
})

describe('history stays in git', () => {
  // A date (2024-05-01, or 1 May 2024 and May 1, 2024) or an abbreviated commit hash (7 to 40 hex
  // digits with at least one letter and one digit). 24 hex digits are left alone: that is the
  // shape of a note's id, which examples may show.
  const MONTH = '(?:January|February|March|April|May|June|July|August|September|October|November|December)'
  const DATE = new RegExp(
    `\\b\\d{4}-\\d{2}-\\d{2}\\b|\\b\\d{1,2} ${MONTH} \\d{4}\\b|\\b${MONTH} \\d{1,2}, \\d{4}\\b`,
    'g',
  )
  const HASH = /\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b/g

  for (const page of PAGES) {
    it(`${page} holds no dates and no commit hashes`, () => {
      const text = read(page)
      assert.deepEqual(text.match(DATE) ?? [], [], 'dates')
      assert.deepEqual(
        (text.match(HASH) ?? []).filter((hex) => hex.length !== 24),
        [],
        'commit hashes',
      )
    })
  }
})
