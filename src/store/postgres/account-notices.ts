// One connection per process LISTENs for migration 10's notices of account changes (docs/caching.md), proven live by
// the checks of notice-listener.ts.
import { NoticeListener, type NoticeListenerOptions } from './notice-listener.js'

/** The channel migration 10's trigger notifies, with the account's id ('' for every account). */
const ACCOUNT_CHANNEL = 'notes_service_account_versions'

export interface AccountListenerOptions extends Omit<NoticeListenerOptions, 'applicationName' | 'channels' | 'onNotice'> {
  /** An account's version changed; undefined: any account's may have (TRUNCATE). */
  onNotice(id: string | undefined): void
}

export class AccountListener extends NoticeListener {
  constructor(options: AccountListenerOptions) {
    super({
      ...options,
      applicationName: 'notes-service account listener',
      channels: [ACCOUNT_CHANNEL],
      onNotice: (_channel, payload) => options.onNotice(payload || undefined),
    })
  }
}
