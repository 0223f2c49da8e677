// What the sync engine tells the page about the network and the outbox, and what the offline
// line (SyncIndicator.tsx) shows of it.
import type { Waiting } from './outbox'

export interface SyncStatus {
  /** The browser says it is online and the last request reached the server. */
  online: boolean
  /** Changes made here that the server has not taken yet. */
  waiting: number
  /** Why a waiting change was refused by the server, when one was. */
  refused: string | undefined
  /** Waiting changes whose conflict the editor shows, until the person chooses. */
  held: number
}

export function syncStatus(online: boolean, outbox: readonly Waiting[]): SyncStatus {
  return {
    online,
    waiting: outbox.length,
    refused: outbox.find((w) => w.refused)?.refused,
    held: outbox.filter((w) => w.held).length,
  }
}
