// How the store is cut (docs/architecture.md, "The store"): the Store is the intersection of its sections, one type
// file each under src/store/, and each driver implements every method of a section in the file of the section's
// name (the driver's contract, driver.ts, and the Store's lifecycle, types.ts, in its index.ts). A failure names the
// method and where it was found. Import loops, here as everywhere, are test/import-loops.test.ts's.
import assert from 'node:assert/strict'
import { readFileSync, readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, it } from 'node:test'

const ROOT = resolve(import.meta.dirname, '..')
const STORE = 'src/store'
const DRIVERS = ['sqlite', 'postgres']
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8')

/** The methods an interface of `file` declares: its lines `  name(`, and `  name?(` (a method a driver may leave out). */
function methodsOf(file: string, name: string): Array<{ method: string; optional: boolean }> {
  const block = new RegExp(`export interface ${name}\\b[^{]*\\{([\\s\\S]*?)\\n\\}`).exec(read(file))
  assert.ok(block, `${file} declares ${name}`)
  return [...(block[1] as string).matchAll(/^ {2}(\w+)(\??)\(/gm)].map((m) => ({
    method: m[1] as string,
    optional: m[2] === '?',
  }))
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
  found.set('index.ts', [
    ...methodsOf(`${STORE}/types.ts`, 'StoreLifecycle'),
    ...methodsOf(`${STORE}/driver.ts`, 'StoreDriver'),
  ])
  return found
}

/** The files of a driver that define `method` as an object's member or a class's method. */
function definersOf(driver: string, method: string): string[] {
  const dir = `${STORE}/${driver}`
  const definition = new RegExp(
    String.raw`^\s+(?:async\s+)?${method}(?:\s*:\s*(?:async\s*)?\(|\s*\(|\s*:\s*\w+\()`,
    'm',
  )
  return readdirSync(join(ROOT, dir))
    .filter((file) => file.endsWith('.ts') && definition.test(read(`${dir}/${file}`)))
    .sort()
}

describe('the Store by section, the drivers mirrored method by method', () => {
  const bySection = sections()

  it('has the sections the Store is the intersection of', () => {
    // The intersection as written, on one line or, formatted, over several.
    const intersection = /export type Store =((?:\s*\w+\s*&)*\s*\w+)/.exec(read(`${STORE}/types.ts`))?.[1]
    const store = intersection?.trim().split(/\s*&\s*/) ?? []
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
          assert.ok(
            definers.includes(file),
            `${method} is not defined in ${driver}/${file} (found in: ${definers.join(', ') || 'no file'})`,
          )
          // The lifecycle's names are common words: other classes of a driver have a close() of their own.
          if (file !== 'index.ts') assert.deepEqual(definers, [file], `${method} lives in ${driver}/${file} alone`)
        }
      })
    }
  }
})
