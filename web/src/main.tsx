// First: the listing starts travelling before the rest of the app is evaluated.
import './early-listing'
import { StrictMode, Suspense, lazy } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App'
import { ToastProvider } from './components/Toasts'
import { SessionProvider } from './session'
import './styles.css'

// Its own chunk, after the first render: the first download carries only this line. Not loaded
// (offline before any worker), the app simply runs without one.
const ServiceWorker = lazy(() => import('./pwa/ServiceWorker').catch(() => ({ default: () => null })))

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ToastProvider>
      <SessionProvider>
        <App />
        {'serviceWorker' in navigator && (
          <Suspense>
            <ServiceWorker />
          </Suspense>
        )}
      </SessionProvider>
    </ToastProvider>
  </StrictMode>,
)
