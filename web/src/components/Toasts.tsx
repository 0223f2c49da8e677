// Messages about what just happened, at the bottom of the screen: confirmations fade after a few
// seconds (a delete's carries its Undo), failures stay until dismissed, so none goes unseen.
import { type ReactNode, createContext, useCallback, useContext, useMemo, useRef, useState } from 'react'
import { CloseIcon } from './Icons'

export interface ToastInput {
  kind?: 'info' | 'error'
  message: string
  action?: { label: string; run: () => void }
  /** How long an info toast stays; errors stay until dismissed. */
  timeoutMs?: number
}

interface Toast extends ToastInput {
  id: number
}

interface Toasts {
  show: (toast: ToastInput) => number
  dismiss: (id: number) => void
}

const ToastContext = createContext<Toasts | undefined>(undefined)

export function useToasts(): Toasts {
  const toasts = useContext(ToastContext)
  if (!toasts) throw new Error('useToasts outside ToastProvider')
  return toasts
}

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([])
  const timers = useRef(new Map<number, ReturnType<typeof setTimeout>>())
  const all = useRef(new Map<number, Toast>())
  const next = useRef(1)

  const dismiss = useCallback((id: number) => {
    clearTimeout(timers.current.get(id))
    timers.current.delete(id)
    all.current.delete(id)
    setToasts((list) => list.filter((t) => t.id !== id))
  }, [])

  const show = useCallback(
    (input: ToastInput) => {
      const toast = { ...input, id: next.current++ }
      // A new confirmation replaces the previous ones (an undo stays until its time is up).
      if (toast.kind !== 'error') {
        for (const old of [...all.current.values()]) if (old.kind !== 'error' && !old.action) dismiss(old.id)
      }
      all.current.set(toast.id, toast)
      setToasts((list) => [...list, toast])
      if (toast.kind !== 'error')
        timers.current.set(
          toast.id,
          setTimeout(() => dismiss(toast.id), toast.timeoutMs ?? 4000),
        )
      return toast.id
    },
    [dismiss],
  )

  const value = useMemo(() => ({ show, dismiss }), [show, dismiss])
  return (
    <ToastContext.Provider value={value}>
      {children}
      <div className="toasts" aria-live="polite">
        {toasts.map((toast) => (
          <div
            key={toast.id}
            className={`toast ${toast.kind ?? 'info'}`}
            role={toast.kind === 'error' ? 'alert' : 'status'}
          >
            <span className="toast-message">{toast.message}</span>
            {toast.action && (
              <button
                type="button"
                className="toast-action"
                onClick={() => {
                  toast.action?.run()
                  dismiss(toast.id)
                }}
              >
                {toast.action.label}
              </button>
            )}
            <button type="button" className="icon-button small" aria-label="Dismiss" onClick={() => dismiss(toast.id)}>
              <CloseIcon size={16} />
            </button>
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  )
}
