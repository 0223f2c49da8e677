// The layer diagram of docs/architecture.md is the import graph of src/: every relative import
// between two layers follows a path of the diagram's arrows, every arrow stands for at least one
// import, and the arrows make no cycle. A failure names the import or the arrow to fix, in the
// code or in the diagram.
import assert from 'node:assert/strict'
import { readFileSync, readdirSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, it } from 'node:test'

const ROOT = resolve(import.meta.dirname, '..')
const DOC = 'docs/architecture.md'

/** Modules any layer may import; they import only each other. */
const LEAVES = [
  'src/config.ts',
  'src/errors.ts',
  'src/unicode.ts',
  'src/secret.ts',
  'src/note-shape.ts',
  'src/attachment-shape.ts',
  'src/import-shape.ts',
]

/** The layer of a file under src/: the diagram's node ids, as the doc's table describes them. */
function layerOf(file: string): string | undefined {
  const single: Record<string, string> = {
    'src/cli.ts': 'cli',
    'src/cluster.ts': 'cluster',
    'src/server.ts': 'server',
    'src/app.ts': 'app',
    'src/client-errors.ts': 'app',
    'src/unread-body.ts': 'app',
    'src/store/open.ts': 'open',
  }
  if (single[file]) return single[file]
  if (file.startsWith('src/accounts-cli/')) return 'accountscli'
  const folder =
    /^src\/(?:store\/(sqlite|postgres|cache)\/|(routes|plugins|schemas|services|transfer|store|blobs)\/)/.exec(file)
  return folder ? (folder[1] ?? folder[2]) : undefined
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/** Relative imports of a file (static, dynamic and re-exports), as paths from the root. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8')
  return [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*)'(\.{1,2}\/[^']+)'/g)].map((m) =>
    relative(ROOT, resolve(ROOT, dirname(file), m[1] as string)).replace(/\.js$/, '.ts'),
  )
}

/** The arrows of the doc's mermaid block: `a --> b`, `a -.-> b`, node labels allowed on both sides. */
function diagramArrows(): Array<[string, string]> {
  const doc = readFileSync(join(ROOT, DOC), 'utf8')
  const block = /```mermaid\n([\s\S]*?)```/.exec(doc)
  assert.ok(block, `${DOC} has a mermaid block`)
  const arrows: Array<[string, string]> = []
  for (const line of (block[1] as string).split('\n')) {
    const m = /^\s*(\w+)(?:\[[^\]]*\])?\s*-\.?->\s*(\w+)(?:\[[^\]]*\])?\s*$/.exec(line)
    if (m) arrows.push([m[1] as string, m[2] as string])
  }
  assert.ok(arrows.length > 10, `${DOC}'s diagram has its arrows`)
  return arrows
}

const arrows = diagramArrows()
const next = new Map<string, Set<string>>()
for (const [from, to] of arrows) next.set(from, (next.get(from) ?? new Set()).add(to))

function reachable(from: string): Set<string> {
  const seen = new Set<string>()
  const queue = [...(next.get(from) ?? [])]
  while (queue.length > 0) {
    const node = queue.pop() as string
    if (seen.has(node)) continue
    seen.add(node)
    queue.push(...(next.get(node) ?? []))
  }
  return seen
}

/** Imports between two layers: "from -> to" and the files that make it. */
const crossings = new Map<string, string[]>()
const files = sourceFiles('src')
for (const file of files) {
  for (const target of importsOf(file)) {
    if (LEAVES.includes(target)) continue
    const from = layerOf(file)
    const to = layerOf(target)
    if (from === undefined || to === undefined || from === to) continue
    const key = `${from} -> ${to}`
    crossings.set(key, [...(crossings.get(key) ?? []), `${file} imports ${target}`])
  }
}

describe(`the layer diagram of ${DOC}`, () => {
  it('places every file of src/ in a layer or among the leaves', () => {
    const placed = files.filter((f) => !LEAVES.includes(f) && layerOf(f) === undefined)
    assert.deepEqual(placed, [], `add these to a layer of ${DOC} and to layerOf() here`)
  })

  it('lets the leaves import only each other', () => {
    const reaching = LEAVES.flatMap((leaf) =>
      importsOf(leaf)
        .filter((t) => !LEAVES.includes(t))
        .map((t) => `${leaf} imports ${t}`),
    )
    assert.deepEqual(reaching, [])
  })

  it('has a path of arrows for every import between layers', () => {
    const against = [...crossings].filter(([key]) => {
      const [from, to] = key.split(' -> ') as [string, string]
      return !reachable(from).has(to)
    })
    assert.deepEqual(
      against.map(([key, why]) => `${key}: ${why.join('; ')}`),
      [],
      `these imports go where no arrow of ${DOC} leads: add the arrow (and say why) or remove the import`,
    )
  })

  it('draws no arrow that no import stands for', () => {
    const launcher = readFileSync(join(ROOT, 'bin/notes-service'), 'utf8')
    const unused = arrows.filter(([from, to]) => {
      if (from === 'bin') return !(to === 'cli' && launcher.includes('dist/src/cli.js'))
      return !crossings.has(`${from} -> ${to}`)
    })
    assert.deepEqual(unused, [], `no import follows these arrows of ${DOC}: remove them`)
  })

  it('has no cycle', () => {
    const cyclic = [...next.keys()].filter((node) => reachable(node).has(node))
    assert.deepEqual(cyclic, [])
  })
})
