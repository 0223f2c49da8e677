// Builds the web app (web/) into dist/web, where the service serves it (src/plugins/web-app.ts):
// the app's page (web/index.html) and the API reference (web/docs/index.html, Swagger UI), and
// the app's service worker (sw.js; scripts/service-worker-options.ts says what it keeps).
// `npm run build` runs it after tsc; `npm start` builds first. After writing, every text file is
// precompressed (brotli, gzip) and the app's initial download is printed against its budget.
import react from '@vitejs/plugin-react'
import { fileURLToPath } from 'node:url'
import { type Plugin, defineConfig } from 'vite'
import { VitePWA } from 'vite-plugin-pwa'
import { serviceWorkerOptions } from './scripts/service-worker-options.js'
import { INITIAL_GZIP_BUDGET_BYTES, describeInitialDownload, precompress } from './scripts/web-assets.js'

const webDir = fileURLToPath(new URL('./web/', import.meta.url))
const outDir = fileURLToPath(new URL('./dist/web/', import.meta.url))

/** The API's paths, answered by the service in `vite dev`. */
const API_PATHS = [
  '/create-account',
  '/login',
  '/get-user',
  '/add-note',
  '/edit-note',
  '/delete-note',
  '/update-note-pinned',
  '/get-all-notes',
  '/search-notes',
  // The trash and a note's history (docs/history.md).
  '/get-trash',
  '/restore-note',
  '/delete-note-forever',
  '/empty-trash',
  '/get-note-history',
  '/restore-revision',
  '/openapi.json',
  // The change feed and its stream (docs/sync.md), which keep the app's replica current.
  '/get-changes',
  '/stream-changes',
  // The account endpoints beside the contract's (docs/accounts.md), used by the account page.
  '/logout',
  '/get-sessions',
  '/delete-session',
  '/change-password',
  '/edit-user',
  '/delete-account',
  // The account's files (docs/attachments.md): uploads, their bytes, the listing, deleting one.
  '/upload-attachment',
  '/attachments/',
  '/get-attachments',
  '/delete-attachment',
]

function precompressAndReport(): Plugin {
  // The build's own output directory: a test builds a second version elsewhere.
  let builtDir = outDir
  return {
    name: 'notes-precompress',
    apply: 'build',
    configResolved(config) {
      builtDir = config.build.outDir
    },
    // After the service worker is written (its own closeBundle), so sw.js is compressed too.
    closeBundle: {
      order: 'post',
      sequential: true,
      handler() {
        const count = precompress(builtDir)
        const { text, totalGzip } = describeInitialDownload(builtDir)
        console.log(`\nweb app: ${count} files precompressed (brotli, gzip) in ${builtDir}\n${text}`)
        if (totalGzip > INITIAL_GZIP_BUDGET_BYTES) console.warn('web app: the initial download is over its budget')
      },
    },
  }
}

export default defineConfig({
  root: webDir,
  base: '/',
  plugins: [react(), VitePWA(serviceWorkerOptions), precompressAndReport()],
  build: {
    outDir,
    emptyOutDir: true,
    // Vite's own report prints gzip sizes of every chunk, Swagger UI's included; ours prints the
    // app's initial download only.
    reportCompressedSize: false,
    // Swagger UI (the /docs page only) is one chunk of about 1.5 MB.
    chunkSizeWarningLimit: 2000,
    // Modern browsers only: no polyfill script (and nothing inline for the CSP to allow).
    modulePreload: { polyfill: false },
    target: 'es2022',
    rolldownOptions: {
      input: { app: `${webDir}index.html`, docs: `${webDir}docs/index.html` },
      output: {
        // The code that shows, uploads and keeps attachments is one chunk, whichever of the notes,
        // the editor, the outbox or the account page asks first: split by who shares what, it made
        // five small files, each a name more in the first download's list of chunks. Its
        // dependencies stay where they are (the API client in the first download, IndexedDB's
        // with the replica).
        codeSplitting: {
          groups: [
            {
              name: 'attachments',
              test: /web[\\/]src[\\/]attachments[\\/]/,
              includeDependenciesRecursively: false,
            },
          ],
        },
      },
    },
  },
  // `npx vite` serves the app with hot reload; the API comes from a service on port 8000.
  server: {
    proxy: Object.fromEntries(API_PATHS.map((path) => [path, 'http://127.0.0.1:8000'])),
  },
})
