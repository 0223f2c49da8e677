// One request of the account page at a time per form: whether it is under way, and what came of
// it, in the API's words for a failure. A 401 ends the session as everywhere else in the app. A
// form that refuses what was typed before sending anything shows why in the same place.
import { useCallback, useState } from 'react'
import { SessionEndedError, messageOf } from '../../api'
import { useSession } from '../../session'

export interface Action {
  busy: boolean
  /** The API's message for the last failure. */
  error?: string
  /** What the last success did, in a sentence. */
  done?: string
  /** Runs `work`; what it resolves to is shown as done. */
  run: (work: () => Promise<string | undefined>) => Promise<void>
  /** Shows `message` as the failure, with no request sent. */
  refuse: (message: string) => void
}

export function useAction(): Action {
  const { ended } = useSession()
  const [state, setState] = useState<Omit<Action, 'run' | 'refuse'>>({ busy: false })
  const run = useCallback(
    async (work: () => Promise<string | undefined>) => {
      setState({ busy: true })
      try {
        const done = await work()
        setState(done ? { busy: false, done } : { busy: false })
      } catch (err) {
        if (err instanceof SessionEndedError) ended()
        else setState({ busy: false, error: messageOf(err) })
      }
    },
    [ended],
  )
  const refuse = useCallback((error: string) => setState({ busy: false, error }), [])
  return { ...state, run, refuse }
}
