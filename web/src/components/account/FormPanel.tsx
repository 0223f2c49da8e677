// A section of the account page that is one form: its heading (naming the section), a hint, the
// fields, what came of the last request (described to the form when it failed), the submit
// button, and anything shown after the form. A submit while a request is under way is ignored.
import { type ReactNode, useId } from 'react'
import { Outcome } from './Outcome'
import type { Action } from './use-action'

interface FormPanelProps {
  title: string
  action: Action
  onSubmit: () => void
  hint?: ReactNode
  /** The submit button, after the outcome; absent when the fields hold it. */
  submit?: ReactNode
  after?: ReactNode
  className?: string
  children: ReactNode
}

export function FormPanel({ title, action, onSubmit, hint, submit, after, className, children }: FormPanelProps) {
  const headingId = useId()
  const outcomeId = useId()
  return (
    <section className={className ? `panel ${className}` : 'panel'} aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      {hint && <p className="panel-hint">{hint}</p>}
      <form
        method="post"
        noValidate
        aria-describedby={action.error ? outcomeId : undefined}
        onSubmit={(event) => {
          event.preventDefault()
          if (!action.busy) onSubmit()
        }}
      >
        {children}
        <Outcome action={action} id={outcomeId} />
        {submit}
      </form>
      {after}
    </section>
  )
}
