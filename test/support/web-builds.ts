// Two builds of the web app served one after the other from the same origin, as a deployment
// replaces one build with the next: the test's build A is dist/web (`npm run build`), build B is
// the same sources built again into a directory of its own with one line added to the app's entry
// (it marks the page `data-build="B"`), so its app chunk, the chunks importing it, its HTML and
// its service worker all differ from A's. The service runs in this process on one store and one
// port, with either build as its web root.
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance } from 'fastify'
import { build } from 'vite'
import { buildApp } from '../../src/app.js'
import { openSqliteStore } from '../../src/store/sqlite/index.js'
import type { Store } from '../../src/store/types.js'
import { SERVICE_LIMITS } from './stores.js'
import { freePort } from './cli.js'
import { TEST_SECRET, testConfig } from './harness.js'
import { tempDir } from './temp.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** Builds the app again into a temporary directory, marked as build `label`; returns the directory. */
export async function buildVariant(label: string): Promise<{ root: string; remove: () => void }> {
  const dir = tempDir(`notes-web-${label}-`)
  const root = join(dir.path, 'web')
  await build({
    configFile: join(ROOT, 'vite.config.ts'),
    logLevel: 'warn',
    build: { outDir: root },
    plugins: [
      {
        name: 'mark-build',
        transform(code, id) {
          if (id.endsWith('/web/src/main.tsx'))
            return `${code}\ndocument.documentElement.dataset.build = ${JSON.stringify(label)}\n`
          return undefined
        },
      },
    ],
  })
  return { root, remove: () => dir.remove() }
}

export interface SwappableServer {
  base: string
  store: Store
  /** Serves `webRoot` from now on, on the same port and store (the previous build stops). */
  serve(webRoot: string): Promise<void>
  close(): Promise<void>
}

export async function startSwappableServer(webRoot: string): Promise<SwappableServer> {
  const store = openSqliteStore({ dataDir: ':memory:', limits: SERVICE_LIMITS })
  const port = await freePort()
  let app: FastifyInstance | undefined
  const server: SwappableServer = {
    base: `http://127.0.0.1:${port}`,
    store,
    async serve(root) {
      await app?.close()
      app = await buildApp({ config: testConfig(), store, secret: TEST_SECRET, webRoot: root })
      await app.listen({ host: '127.0.0.1', port })
    },
    async close() {
      await app?.close()
      await store.close()
    },
  }
  await server.serve(webRoot)
  return server
}
