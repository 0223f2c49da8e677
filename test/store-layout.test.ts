// How the store is cut (docs/architecture.md, "The store"): the Store is the intersection of its sections, one type
// file each under src/store/, and each driver implements every method of a section in the file of the section's
// name (the driver's contract, driver.ts, and the Store's lifecycle, types.ts, in its index.ts). A failure names the
// method and where it was found. And no folder's files import each other in a loop, a type-only import included.
import assert from 'node:assert/strict'
import { readFileSync, readdirSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, it } from 'node:test'

const ROOT = resolve(import.meta.dirname, '..')
const STORE = 'src/store'
const DRIVERS = ['sqlite', 'postgres']
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8')

/** The methods an interface of `file` declares: its lines `  name(`, and `  name?(` (a method a driver may leave out). */
function methodsOf(file: string, name: string): Array<{ method: string; optional: boolean }> {
  const block = new RegExp(`export interface ${name}\\b[^{]*\\{([\\s\\S]*?)\\n\\}`).exec(read(file))
  assert.ok(block, `${file} declares ${name}`)
  return [...(block[1] as string).matchAll(/^ {2}(\w+)(\??)\(/gm)].map((m) => ({ method: m[1] as string, optional: m[2] === '?' }))
}

/** Each section's type file, by the file its methods live in in each driver. */
function sections(): Map<string, Array<{ method: string; optional: boolean }>> {
  const found = new Map<string, Array<{ method: string; optional: boolean }>>()
  for (const file of readdirSync(join(ROOT, STORE)).filter((f) => f.endsWith('.ts'))) {
    const text = read(`${STORE}/${file}`)
    const section = /^export interface (\w+Store) \{/m.exec(text)
    if (file === 'types.ts' || file === 'driver.ts' || !section) continue
    found.set(file, methodsOf(`${STORE}/${file}`, section[1] as string))
  }
  found.set('index.ts', [...methodsOf(`${STORE}/types.ts`, 'StoreLifecycle'), ...methodsOf(`${STORE}/driver.ts`, 'StoreDriver')])
  return found
}

/** The files of a driver that define `method` as an object's member or a class's method. */
function definersOf(driver: string, method: string): string[] {
  const dir = `${STORE}/${driver}`
  const definition = new RegExp(String.raw`^\s+(?:async\s+)?${method}(?:\s*:\s*(?:async\s*)?\(|\s*\(|\s*:\s*\w+\()`, 'm')
  return readdirSync(join(ROOT, dir))
    .filter((file) => file.endsWith('.ts') && definition.test(read(`${dir}/${file}`)))
    .sort()
}

describe('the Store by section, the drivers mirrored method by method', () => {
  const bySection = sections()

  it('has the sections the Store is the intersection of', () => {
    const store = /export type Store = ([^\n]+)/.exec(read(`${STORE}/types.ts`))?.[1]?.split(' & ') ?? []
    const declared = [...bySection.keys()].filter((file) => file !== 'index.ts' && file !== 'transfer.ts')
    const named = declared.map((file) => /^export interface (\w+Store) \{/m.exec(read(`${STORE}/${file}`))?.[1])
    assert.deepEqual(store.filter((s) => s !== 'StoreLifecycle').sort(), named.sort())
  })

  for (const driver of DRIVERS) {
    for (const [file, methods] of bySection) {
      it(`${driver}: every method of ${file === 'index.ts' ? 'the contract and the lifecycle' : `store/${file}`} lives in ${driver}/${file}`, () => {
        for (const { method, optional } of methods) {
          const definers = definersOf(driver, method)
          if (optional && definers.length === 0) continue
          assert.ok(definers.includes(file), `${method} is not defined in ${driver}/${file} (found in: ${definers.join(', ') || 'no file'})`)
          // The lifecycle's names are common words: other classes of a driver have a close() of their own.
          if (file !== 'index.ts') assert.deepEqual(definers, [file], `${method} lives in ${driver}/${file} alone`)
        }
      })
    }
  }
})

/** Every folder under `dir` with its .ts files. */
function folders(dir: string): Map<string, string[]> {
  const found = new Map<string, string[]>()
  const entries = readdirSync(join(ROOT, dir), { withFileTypes: true })
  found.set(dir, entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => `${dir}/${e.name}`))
  for (const e of entries) if (e.isDirectory()) for (const [d, files] of folders(`${dir}/${e.name}`)) found.set(d, files)
  return found
}

/** Relative imports of a file (static, dynamic, type-only and re-exports), as paths from the root. */
function importsOf(file: string): string[] {
  return [...read(file).matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*)'(\.{1,2}\/[^']+)'/g)].map((m) =>
    relative(ROOT, resolve(ROOT, dirname(file), m[1] as string)).replace(/\.js$/, '.ts'),
  )
}

/** A loop among `files` through their imports of each other, as the files in order; undefined when none. */
function loopAmong(files: string[]): string[] | undefined {
  const inFolder = new Set(files)
  const state = new Map<string, 'open' | 'done'>()
  const path: string[] = []
  const visit = (file: string): string[] | undefined => {
    if (state.get(file) === 'done') return undefined
    if (state.get(file) === 'open') return [...path.slice(path.indexOf(file)), file]
    state.set(file, 'open')
    path.push(file)
    for (const next of importsOf(file).filter((f) => inFolder.has(f))) {
      const loop = visit(next)
      if (loop) return loop
    }
    path.pop()
    state.set(file, 'done')
    return undefined
  }
  for (const file of files) {
    const loop = visit(file)
    if (loop) return loop
  }
  return undefined
}

describe('no import loop inside a folder of the store or the services', () => {
  for (const dir of [...folders(STORE).keys(), ...folders('src/services').keys()]) {
    // Its subfolders' files too: a list importing its migrations, which import the list's type back, is a loop.
    it(`${dir}: its files, and its subfolders', import each other in no loop`, () => {
      const loop = loopAmong([...folders(dir).values()].flat())
      assert.equal(loop, undefined, `${dir}: ${loop?.map((f) => relative(dir, f)).join(' -> ')}`)
    })
  }
})
