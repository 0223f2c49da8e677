// The web app's system tests run the service as `npm start` does: bin/notes-service serve on the
// built dist/ (server and app), with a data directory of its own, on SQLite or on a PostgreSQL
// database of its own. `npm test` runs without a build first, so the first web test builds
// (`npm run build`); the sources' fingerprint is kept beside the build, and later files reuse it
// while nothing under the build's inputs changed.
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import type { PageWindow } from './page-globals.js'
import { type ChildServer, startChild } from './child-server.js'
import { createTestDatabase } from './services.js'
import type { StoreKind } from './stores.js'
import { tempDir } from './temp.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
export const WEB_ROOT = join(ROOT, 'dist', 'web')
const STAMP = join(ROOT, 'dist', '.build-inputs')
const INPUTS = [
  'src',
  'web',
  'bench',
  'scripts',
  'vite.config.ts',
  'tsconfig.json',
  'tsconfig.build.json',
  'package-lock.json',
]

function fingerprint(): string {
  const hash = createHash('sha256')
  const visit = (path: string) => {
    const full = join(ROOT, path)
    if (!existsSync(full)) return
    if (statSync(full).isDirectory()) {
      for (const name of readdirSync(full).sort()) if (name !== 'results') visit(join(path, name))
    } else {
      hash.update(path).update('\0').update(readFileSync(full)).update('\0')
    }
  }
  INPUTS.forEach(visit)
  return hash.digest('hex')
}

/** Builds server and app (`npm run build`) unless the build in dist/ is of these very sources. */
export function ensureBuilt(): void {
  const inputs = fingerprint()
  const built = existsSync(STAMP) && readFileSync(STAMP, 'utf8') === inputs
  if (built && existsSync(join(WEB_ROOT, 'index.html')) && existsSync(join(ROOT, 'dist', 'src', 'cli.js'))) return
  try {
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'pipe', encoding: 'utf8' })
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string }
    throw new Error(`npm run build failed:\n${stdout ?? ''}\n${stderr ?? ''}`)
  }
  writeFileSync(STAMP, inputs)
}

export interface WebServer {
  base: string
  child: ChildServer
  /** Stops the service and starts it again on the same port and data, with `env` added. */
  restart(env?: Record<string, string>): Promise<void>
  close(): Promise<void>
}

/**
 * The built service on a free port, as `npm start` runs it (bin/notes-service serve), on a fresh
 * SQLite data directory or a fresh PostgreSQL database; `env` adds settings (WORKERS, limits...).
 */
export async function startWebServer(storeKind: StoreKind, env: Record<string, string> = {}): Promise<WebServer> {
  ensureBuilt()
  const data = tempDir('notes-web-')
  const database = storeKind === 'postgresql' ? await createTestDatabase() : undefined
  const baseEnv = { ...(database ? { DATABASE_URL: database.url } : {}), ...env }
  let child: ChildServer
  try {
    child = await startChild({ dataDir: data.path, launcher: true, env: baseEnv })
  } catch (err) {
    await database?.drop()
    data.remove()
    throw err
  }
  const server: WebServer = {
    base: child.base,
    child,
    async restart(extra = {}) {
      await server.child.stop()
      server.child = await startChild({
        dataDir: data.path,
        launcher: true,
        port: server.child.port,
        env: { ...baseEnv, ...extra },
      })
    },
    async close() {
      await server.child.stop()
      await database?.drop()
      data.remove()
    },
  }
  return server
}

export const VIEWPORTS = {
  desktop: { viewport: { width: 1280, height: 800 } },
  phone: { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
} as const
export type ViewportName = keyof typeof VIEWPORTS

const AXE_SOURCE = readFileSync(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8')

export interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: string[]
}

/**
 * Runs axe-core (WCAG 2.x A and AA rules and best practices) on what the page shows now; returns
 * the serious and critical violations. axe is added through the DevTools protocol's isolated
 * world, so the page's CSP and Trusted Types do not apply to it.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE)
  const results = await page.evaluate(async () => {
    const w = globalThis as unknown as PageWindow & {
      axe: {
        run: (
          context: unknown,
          options: object,
        ) => Promise<{
          violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: string[] }> }>
        }>
      }
    }
    const { violations } = await w.axe.run(w.document, { resultTypes: ['violations'] })
    return violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => n.target.join(' ')),
    }))
  })
  return results.filter((v) => v.impact === 'serious' || v.impact === 'critical')
}
