// What came of a form's last request: the API's message for a failure (an alert), or what was done.
import type { Action } from './use-action'

export function Outcome({ action, id }: { action: Action; id?: string }) {
  if (action.error) {
    return (
      <p className="form-error" id={id} role="alert">
        {action.error}
      </p>
    )
  }
  if (action.done) {
    return (
      <p className="form-done" role="status">
        {action.done}
      </p>
    )
  }
  return null
}
