// A Standard Notes backup as the app writes it: {version, items} with notes, tags, an items key and other items,
// decrypted (or encrypted, to be refused), as "Standard Notes Backup and Import File.txt" alone or in the backup's
// zip, and the notes each should become (docs/migration.md, "Standard Notes").
import type { ExpectedImport, FixtureFile } from './archive-files.js'

/** The format has no files. */
export type ExpectedStandardNote = Omit<ExpectedImport, 'files'>

export const BACKUP_NAME = 'Standard Notes Backup and Import File.txt'

const item = (
  uuid: string,
  content_type: string,
  content: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) => ({
  uuid,
  content_type,
  created_at: '2023-04-01T10:00:00.000Z',
  updated_at: '2023-04-02T10:00:00.000Z',
  created_at_timestamp: 1680343200000000,
  updated_at_timestamp: 1680429600000000,
  duplicate_of: null,
  content,
  ...extra,
})

const appData = (data: Record<string, unknown>) => ({ 'org.standardnotes.sn': data })

export function standardNotesBackup(): { backup: string; files: FixtureFile[]; expected: ExpectedStandardNote[] } {
  const items = [
    item('11111111-1111-4111-8111-111111111111', 'Note', {
      title: 'Meeting notes',
      text: '# Agenda\n\n- one\n- two',
      references: [],
      noteType: 'markdown',
      pinned: true,
      appData: appData({ client_updated_at: '2023-04-03T08:00:00.000Z' }),
    }),
    item('22222222-2222-4222-8222-222222222222', 'Note', {
      title: 'Archived in appData',
      text: 'old',
      references: [],
      appData: appData({ archived: true, pinned: true }),
    }),
    item('33333333-3333-4333-8333-333333333333', 'Note', { title: '', text: 'binned', trashed: true, references: [] }),
    item(
      '44444444-4444-4444-8444-444444444444',
      'Note',
      { title: 'Bad time', text: 'x', references: [] },
      { created_at: 'never' },
    ),
    item('55555555-5555-4555-8555-555555555555', 'Note', { title: 'Deleted', text: 'x' }, { deleted: true }),
    item('66666666-6666-4666-8666-666666666666', 'Tag', {
      title: 'work',
      references: [
        { uuid: '11111111-1111-4111-8111-111111111111', content_type: 'Note' },
        { uuid: '22222222-2222-4222-8222-222222222222', content_type: 'Note' },
        { uuid: '77777777-7777-4777-8777-777777777777', content_type: 'Tag', reference_type: 'TagToParentTag' },
      ],
    }),
    item('77777777-7777-4777-8777-777777777777', 'Tag', {
      title: 'projects',
      references: [{ uuid: '11111111-1111-4111-8111-111111111111', content_type: 'Note' }],
    }),
    item('88888888-8888-4888-8888-888888888888', 'SN|UserPreferences', { references: [] }),
    item('99999999-9999-4999-8999-999999999999', 'SN|Theme', { name: 'Midnight', references: [] }),
  ]
  const backup = JSON.stringify({ version: '004', items }, null, 2)
  const files: FixtureFile[] = [
    { path: BACKUP_NAME, bytes: backup },
    { path: 'Items/Note/Meeting notes.txt', bytes: '# Agenda\n\n- one\n- two' },
    { path: 'Items/Tag/work.txt', bytes: 'work' },
  ]
  const expected: ExpectedStandardNote[] = [
    {
      key: 'standard-notes:11111111-1111-4111-8111-111111111111',
      title: 'Meeting notes',
      content: '# Agenda\n\n- one\n- two',
      tags: ['work', 'projects'],
      isPinned: true,
      trashed: false,
      createdOn: '2023-04-01T10:00:00.000Z',
      updatedOn: '2023-04-03T08:00:00.000Z',
    },
    {
      key: 'standard-notes:22222222-2222-4222-8222-222222222222',
      title: 'Archived in appData',
      content: 'old',
      tags: ['work', 'archived'],
      isPinned: true,
      trashed: false,
      createdOn: '2023-04-01T10:00:00.000Z',
      updatedOn: '2023-04-02T10:00:00.000Z',
    },
    {
      key: 'standard-notes:33333333-3333-4333-8333-333333333333',
      title: '',
      content: 'binned',
      tags: [],
      isPinned: false,
      trashed: true,
      createdOn: '2023-04-01T10:00:00.000Z',
      updatedOn: '2023-04-02T10:00:00.000Z',
    },
  ]
  return { backup, files, expected }
}

/** An encrypted backup: every item's content a 004 string beside its encrypted item key. */
export const encryptedBackup = (): string =>
  JSON.stringify({
    version: '004',
    keyParams: { identifier: 'me@example.com', version: '004', origination: 'registration', pw_nonce: 'abc' },
    items: [
      {
        uuid: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa',
        content_type: 'Note',
        content: '004:nonce:ciphertext:authenticated',
        enc_item_key: '004:nonce:key:authenticated',
        items_key_id: 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb',
        created_at: '2023-04-01T10:00:00.000Z',
        updated_at: '2023-04-01T10:00:00.000Z',
      },
    ],
  })
