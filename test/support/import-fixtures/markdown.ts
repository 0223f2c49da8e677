// Markdown sources as other apps write them (an Obsidian vault, a Joplin "Markdown + Front Matter" export, plain
// files), each with the notes it should become: content names each file as `<file:NAME>` where its ref stands.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ImportedNote } from '../../../src/transfer/formats/items.js'

export interface ExpectedNote {
  key: string
  title: string
  content: string
  tags: string[]
  isPinned: boolean
  createdOn?: string
  updatedOn?: string
  /** The files' names and bytes, in the order of their first link. */
  files: { name: string; bytes: Buffer }[]
}

export interface MarkdownFixture {
  files: Record<string, string | Buffer>
  notes: ExpectedNote[]
  /** Labels of the items to be skipped, with a pattern of the reason. */
  skipped: { label: string; reason: RegExp }[]
}

/** Writes `files` under `dir`. */
export function writeFixture(dir: string, files: Record<string, string | Buffer>): string {
  for (const [path, data] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true })
    writeFileSync(join(dir, path), data)
  }
  return dir
}

/** A note's content with each ref as `<file:NAME>`, to compare with an ExpectedNote's. */
export const withFileNames = (note: ImportedNote): string =>
  note.files.reduce((content, file) => content.split(file.ref).join(`<file:${file.name}>`), note.content)

const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')
const pdf = Buffer.from('%PDF-1.4 fixture\n')

export function obsidianVault(): MarkdownFixture {
  const files: Record<string, string | Buffer> = {
    'Vault/.obsidian/app.json': '{}',
    'Vault/.obsidian/snippets/hidden.md': '# not a note',
    'Vault/.trash/Deleted.md': 'deleted',
    'Vault/Daily/2024-01-02.md': [
      '---',
      'tags: [daily, "#work"]',
      'created: 2024-01-02 09:30',
      'pinned: true',
      '---',
      'Met #alice about #project/alpha. Not tags: a#b, [x](#anchor), https://e.com/p#frag, #123.',
      '![[diagram.png|300]] and ![[sub/doc.pdf]] and ![[Other note]] and ![[missing.png]]',
      '```',
      '#notatag ![[diagram.png]]',
      '```',
      'Inline `#code` and ![alt](../assets/a%20b.png) and [doc](../assets/a%20b.png) and [n](Other%20note.md)',
      '[gone](../assets/missing.pdf) [web](https://example.com/x.png)',
    ].join('\n'),
    'Vault/Other note.md': '---\ntags: "alpha, beta #gamma"\n---\nText with #Alpha again.\n',
    'Vault/assets/diagram.png': png,
    'Vault/assets/a b.png': png,
    'Vault/deep/sub/doc.pdf': pdf,
    'Vault/sub/doc.pdf': Buffer.from('%PDF shortest\n'),
    'Vault/elsewhere/deep/diagram.png': Buffer.from('longer path'),
  }
  const daily: ExpectedNote = {
    key: 'markdown:Vault/Daily/2024-01-02.md',
    title: '2024-01-02',
    content: [
      'Met #alice about #project/alpha. Not tags: a#b, [x](#anchor), https://e.com/p#frag, #123.',
      '![diagram.png](<file:diagram.png>) and [doc.pdf](<file:doc.pdf>) and ![[Other note]] and ![[missing.png]]',
      '```',
      '#notatag ![[diagram.png]]',
      '```',
      'Inline `#code` and ![alt](<file:a b.png>) and [doc](<file:a b.png>) and [n](Other%20note.md)',
      '[gone](../assets/missing.pdf) [web](https://example.com/x.png)',
    ].join('\n'),
    tags: ['daily', 'work', 'alice', 'project/alpha'],
    isPinned: true,
    createdOn: '2024-01-02T09:30:00.000Z',
    files: [
      { name: 'diagram.png', bytes: png },
      { name: 'doc.pdf', bytes: Buffer.from('%PDF shortest\n') },
      { name: 'a b.png', bytes: png },
    ],
  }
  const other: ExpectedNote = {
    key: 'markdown:Vault/Other note.md',
    title: 'Other note',
    content: 'Text with #Alpha again.\n',
    tags: ['alpha', 'beta', 'gamma'],
    isPinned: false,
    files: [],
  }
  return { files, notes: [daily, other], skipped: [] }
}

export function joplinExport(): MarkdownFixture {
  // In sorted order, as a folder lists them; a zip keeps this order too.
  const files: Record<string, string | Buffer> = {
    'Notebook/Sub/Empty.md': '---\ntitle: ""\n---\n',
    'Notebook/Trip plan.md': [
      '---',
      'title: Trip plan',
      'updated: 2021-04-08 13:08:01Z',
      'created: 2021-04-01 10:00:00Z',
      'tags:',
      '  - travel',
      '  - 2021 plans',
      '---',
      '',
      '# Heading kept',
      '',
      '![map.png](../_resources/0f1e2d3c4b5a69788796a5b4c3d2e1f0.png)',
      '[ticket.pdf](../_resources/a1b2c3d4e5f60718293a4b5c6d7e8f90.pdf)',
    ].join('\n'),
    '_resources/0f1e2d3c4b5a69788796a5b4c3d2e1f0.png': png,
    '_resources/a1b2c3d4e5f60718293a4b5c6d7e8f90.pdf': pdf,
    '_resources/attached.md': '# a Markdown file attached to a note',
  }
  const notes: ExpectedNote[] = [
    {
      key: 'markdown:Notebook/Sub/Empty.md',
      title: '',
      content: '',
      tags: [],
      isPinned: false,
      files: [],
    },
    {
      key: 'markdown:Notebook/Trip plan.md',
      title: 'Trip plan',
      content: [
        '',
        '# Heading kept',
        '',
        '![map.png](<file:0f1e2d3c4b5a69788796a5b4c3d2e1f0.png>)',
        '[ticket.pdf](<file:a1b2c3d4e5f60718293a4b5c6d7e8f90.pdf>)',
      ].join('\n'),
      tags: ['travel', '2021 plans'],
      isPinned: false,
      createdOn: '2021-04-01T10:00:00.000Z',
      updatedOn: '2021-04-08T13:08:01.000Z',
      files: [
        { name: '0f1e2d3c4b5a69788796a5b4c3d2e1f0.png', bytes: png },
        { name: 'a1b2c3d4e5f60718293a4b5c6d7e8f90.pdf', bytes: pdf },
      ],
    },
  ]
  return { files, notes, skipped: [] }
}

export function plainFiles(): MarkdownFixture {
  const files: Record<string, string | Buffer> = {
    'a-heading.md': '\n# First heading #\n\nBody text.\n# Second\n',
    'b-front-title.md':
      '---\ntitle: From front matter\ndate: 2023-05-06\nupdated: 2023-05-07T08:09:10+02:00\n---\n# Heading stays\n',
    'c-no-title.md': 'Just text, ## not a title\n',
    'd-bad-date.md': '---\ncreated: next tuesday\n---\ntext\n',
    'e-crlf.md': '# Windows title\r\n\r\nline\r\n',
    'f-bad-yaml.md': '---\ntitle: [unclosed\n---\ntext\n',
  }
  const notes: ExpectedNote[] = [
    {
      key: 'markdown:a-heading.md',
      title: 'First heading',
      content: 'Body text.\n# Second\n',
      tags: [],
      isPinned: false,
      files: [],
    },
    {
      key: 'markdown:b-front-title.md',
      title: 'From front matter',
      content: '# Heading stays\n',
      tags: [],
      isPinned: false,
      createdOn: '2023-05-06T00:00:00.000Z',
      updatedOn: '2023-05-07T06:09:10.000Z',
      files: [],
    },
    {
      key: 'markdown:c-no-title.md',
      title: 'c-no-title',
      content: 'Just text, ## not a title\n',
      tags: [],
      isPinned: false,
      files: [],
    },
    { key: 'markdown:e-crlf.md', title: 'Windows title', content: 'line\r\n', tags: [], isPinned: false, files: [] },
  ]
  const skipped = [
    { label: 'd-bad-date.md', reason: /created date is not a date: next tuesday/ },
    { label: 'f-bad-yaml.md', reason: /front matter is not readable YAML/ },
  ]
  return { files, notes, skipped }
}
