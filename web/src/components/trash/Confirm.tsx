// A question before something that cannot be undone: a small modal dialog whose safe answer,
// Cancel, has the focus, so Enter or Esc out of habit changes nothing.
import { useEffect, useId, useRef } from 'react'
import './confirm.css'

interface Props {
  title: string
  children: string
  confirmLabel: string
  onConfirm: () => void
  onCancel: () => void
}

export function Confirm({ title, children, confirmLabel, onConfirm, onCancel }: Props) {
  const dialog = useRef<HTMLDialogElement>(null)
  const cancel = useRef<HTMLButtonElement>(null)
  const ids = useId()
  useEffect(() => {
    const element = dialog.current
    if (element && !element.open) element.showModal()
    cancel.current?.focus()
    return () => element?.close()
  }, [])
  return (
    <dialog
      ref={dialog}
      className="editor confirm"
      role="alertdialog"
      aria-labelledby={`${ids}-title`}
      aria-describedby={`${ids}-text`}
      onCancel={(e) => {
        e.preventDefault()
        onCancel()
      }}
    >
      <h2 id={`${ids}-title`}>{title}</h2>
      <p id={`${ids}-text`}>{children}</p>
      <div className="confirm-actions">
        <button ref={cancel} type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="button danger" onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  )
}
