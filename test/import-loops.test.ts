// No folder's files import each other in a loop, subfolders included (docs/architecture.md,
// "Import loops"): no file of a loop can be read, tested or moved without the others. Every
// relative import counts, type-only ones included, since a type loop ties the files as firmly. A
// failure names the files of each loop.
import assert from 'node:assert/strict'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, it } from 'node:test'

const ROOT = resolve(import.meta.dirname, '..')
const TREES = ['src', 'web/src', 'bench', 'test', 'scripts']
const SOURCE = /\.(ts|tsx)$/

function sourceFiles(dir: string): string[] {
  if (!existsSync(join(ROOT, dir))) return []
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'results' ? [] : sourceFiles(path)
    return SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : []
  })
}

/** The file a relative specifier names: `./x.js` is x.ts, `./x` is x.ts, x.tsx or x/index.ts(x). */
function resolveImport(from: string, specifier: string): string | undefined {
  const base = relative(ROOT, resolve(ROOT, dirname(from), specifier))
  const stem = base.replace(/\.js$/, '')
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`, `${stem}/index.ts`, `${stem}/index.tsx`, base]) {
    if (SOURCE.test(candidate) && existsSync(join(ROOT, candidate))) return candidate
  }
  return undefined
}

/** Relative imports of a file: static, type-only, dynamic and re-exports. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8')
  const specifiers = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)'(\.{1,2}\/[^']+)'/gm)].map(
    (m) => m[1] as string,
  )
  return specifiers.flatMap((s) => resolveImport(file, s) ?? [])
}

/** Strongly connected components of more than one file (Tarjan), each sorted. */
function loops(graph: Map<string, string[]>): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (v: string): void => {
    index.set(v, next)
    low.set(v, next++)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number))
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = []
      let w: string
      do {
        w = stack.pop() as string
        onStack.delete(w)
        component.push(w)
      } while (w !== v)
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort())
    }
  }
  for (const v of graph.keys()) if (!index.has(v)) visit(v)
  return found
}

/** Every file's imports. A loop among them lies inside a folder: the deepest one that holds all its files. */
function importGraph(): Map<string, string[]> {
  return new Map(TREES.flatMap(sourceFiles).map((file) => [file, importsOf(file)]))
}

describe('import loops inside a folder', () => {
  it('finds a loop it is shown, type-only imports included', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ])
    assert.deepEqual(loops(graph), [['a.ts', 'b.ts', 'c.ts']])
    assert.deepEqual(
      loops(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', []],
        ]),
      ),
      [],
    )
    assert.deepEqual(importsOf('test/import-loops.test.ts'), [])
  })

  it('no folder of src, web/src, bench, test or scripts has one', () => {
    const graph = importGraph()
    assert.ok(graph.size > 100, `read ${graph.size} files`)
    const found = loops(graph).map((files) => files.join(' <-> '))
    assert.deepEqual(found, [])
  })
})
