// Part of the sync chunk (engine.ts re-exports it), which the page loads as it starts.
// A quiet line under the toolbar: offline, and how many changes made here wait to be sent. It
// says nothing while online with nothing waiting.
import type { SyncStatus } from './status'

const changes = (n: number) => (n === 1 ? '1 change' : `${n} changes`)

export function SyncIndicator({ sync }: { sync: SyncStatus | undefined }) {
  if (!sync || (sync.online && sync.waiting === 0)) return null
  let text: string
  if (sync.refused) text = `${changes(sync.waiting)} not sent: ${sync.refused}`
  else if (!sync.online)
    text = sync.waiting
      ? `Offline · ${changes(sync.waiting)} waiting to be sent`
      : 'Offline · changes you make are kept on this device'
  else if (sync.waiting > sync.held) text = `Sending ${changes(sync.waiting - sync.held)}…`
  else text = `${changes(sync.held)} waiting for your choice`
  return (
    <p className={`sync-status${sync.online ? '' : ' offline'}`} role="status">
      <span className="sync-dot" aria-hidden="true" />
      {text}
    </p>
  )
}
