// The web app's service worker, as vite-plugin-pwa generates it with Workbox (generateSW): what it
// precaches, what it answers offline, and how a new build takes over (docs/web-app.md, "Installing,
// offline start and updates").
//
// - The app shell is precached: the app's HTML, its hashed scripts and stylesheets (the lazy
//   pages' chunks too), the manifest and the icons. A navigation to one of the app's pages is
//   answered with the precached HTML, online or not, so a page always starts with the HTML and
//   the assets of one build: the worker that precached them.
// - The API reference (/docs, Swagger UI's 1.5 MB) is left to the network: precaching it would
//   cost every install of every build that download for a page few people open offline.
// - No runtime caching at all: API answers are never cached here; the app's IndexedDB replica is
//   what keeps notes offline.
// - A new worker installs in the background and waits; the app offers "A new version is ready ·
//   Reload", and only then asks it to take over (SKIP_WAITING), keeping the editor's text
//   (web/src/pwa/). clientsClaim lets the first visit's page be controlled without a reload.
// - The Workbox runtime is inlined into sw.js: a separate workbox-*.js would be loaded with
//   importScripts, a Trusted Types sink the worker's CSP (the app's) refuses for a plain string.
import type { VitePWAOptions } from 'vite-plugin-pwa'
import { APP_PAGES, SERVICE_WORKER_PATH } from '../src/plugins/web-app.js'

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')

/** The app's pages, with or without a trailing slash, and any query. */
export const APP_PAGE_PATTERN = new RegExp(
  `^(${APP_PAGES.map((page) => escape(page.replace(/\/$/, ''))).join('|')})/?(\\?.*)?$`,
)

export const serviceWorkerOptions: Partial<VitePWAOptions> = {
  strategies: 'generateSW',
  filename: SERVICE_WORKER_PATH.slice(1),
  // The app registers the worker itself (web/src/pwa/ServiceWorker.tsx), and the manifest is a file of
  // web/public linked from the app's page only (the API reference has no manifest).
  injectRegister: false,
  manifest: false,
  registerType: 'prompt',
  workbox: {
    globPatterns: ['index.html', 'assets/*.{js,css}', 'favicon.svg', 'manifest.webmanifest', 'icons/*.{svg,png}'],
    globIgnores: ['assets/docs-*'],
    // The service answers the app's HTML at its pages, not at /index.html.
    manifestTransforms: [
      async (entries) => ({
        manifest: entries.map((entry) => (entry.url === 'index.html' ? { ...entry, url: '/' } : entry)),
        warnings: [],
      }),
    ],
    navigateFallback: '/',
    navigateFallbackAllowlist: [APP_PAGE_PATTERN],
    inlineWorkboxRuntime: true,
    cleanupOutdatedCaches: true,
    clientsClaim: true,
    skipWaiting: false,
    sourcemap: false,
    runtimeCaching: [],
  },
}
