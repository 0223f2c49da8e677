// A Google Keep Takeout as Takeout writes it: Takeout/<localized folder>/<title>.json beside the note's attached
// files and an .html twin per note, and the notes each JSON file should become (docs/migration.md, "Google Keep").
import type { ExpectedImport, FixtureFile } from './archive-files.js'

/** One note's JSON as Keep writes it; fields left out are absent from the file. */
export type KeepJson = Record<string, unknown>

export const PNG_BYTES = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex')
export const M4A_BYTES = Buffer.from('0000001c6674797069736f6d0000020069736f6d69736f32', 'hex')

/** Microseconds as Keep writes them, for an ISO time. */
export const usec = (iso: string) => Date.parse(iso) * 1000

export type ExpectedKeepNote = ExpectedImport

const base = (title: string, created: string, edited: string): KeepJson => ({
  color: 'DEFAULT',
  isTrashed: false,
  isPinned: false,
  isArchived: false,
  title,
  userEditedTimestampUsec: usec(edited),
  createdTimestampUsec: usec(created),
})

/** The files of a Takeout whose Keep folder is `folder`, and what each note becomes; keys are the same in any folder. */
export function keepTakeout(folder = 'Takeout/Keep'): { files: FixtureFile[]; expected: ExpectedKeepNote[] } {
  const files: FixtureFile[] = []
  const expected: ExpectedKeepNote[] = []
  const note = (name: string, json: KeepJson, expect?: Omit<ExpectedKeepNote, 'key'>) => {
    files.push({ path: `${folder}/${name}.json`, bytes: JSON.stringify(json) })
    files.push({ path: `${folder}/${name}.html`, bytes: `<html><body>${name}</body></html>` })
    if (expect) expected.push({ key: `keep:${name}.json`, ...expect })
  }
  files.push({ path: 'Takeout/archive_browser.html', bytes: '<html></html>' })

  note(
    'Groceries',
    {
      ...base('Groceries', '2023-03-01T10:00:00.000Z', '2023-03-02T11:30:00.123Z'),
      color: 'YELLOW',
      isPinned: true,
      textContent: 'For the weekend',
      textContentHtml: '<p dir="ltr">For the weekend</p>',
      listContent: [
        { text: 'Milk', textHtml: 'Milk', isChecked: false },
        { text: 'Bread', textHtml: 'Bread', isChecked: true },
      ],
      labels: [{ name: 'Home' }, { name: 'Shopping list' }],
    },
    {
      title: 'Groceries',
      content: 'For the weekend\n\n- [ ] Milk\n- [x] Bread',
      tags: ['Home', 'Shopping list', 'color:yellow'],
      isPinned: true,
      trashed: false,
      createdOn: '2023-03-01T10:00:00.000Z',
      updatedOn: '2023-03-02T11:30:00.123Z',
      files: [],
    },
  )

  files.push({ path: `${folder}/1a2b3c4d5e.png`, bytes: PNG_BYTES })
  files.push({ path: `${folder}/recording.m4a`, bytes: M4A_BYTES })
  files.push({ path: `${folder}/holiday.jpg`, bytes: PNG_BYTES })
  note(
    'Trip [2023]',
    {
      ...base('Trip [2023]', '2023-05-01T08:00:00.000Z', '2023-05-03T09:00:00.000Z'),
      isArchived: true,
      color: 'teal',
      textContent: 'Pictures and a voice note',
      attachments: [
        { filePath: '1a2b3c4d5e.png', mimetype: 'application/octet-stream' },
        { filePath: 'recording.m4a', mimetype: 'audio/mp4' },
        { filePath: 'holiday.jpeg', mimetype: 'image/jpeg' },
        { filePath: 'gone.jpg', mimetype: 'image/jpeg' },
      ],
      annotations: [
        {
          description: 'A city',
          source: 'WEBLINK',
          title: 'Lisbon (city)',
          url: 'https://en.wikipedia.org/wiki/Lisbon',
        },
        { description: '', source: 'WEBLINK', title: '', url: 'https://example.com/a b' },
      ],
      sharees: [{ isOwner: true, type: 'WRITER', email: 'me@example.com' }],
    },
    {
      title: 'Trip [2023]',
      content:
        'Pictures and a voice note\n\n' +
        '![1a2b3c4d5e.png](/attachments/ID/1a2b3c4d5e.png)\n\n' +
        '[recording.m4a](/attachments/ID/recording.m4a)\n\n' +
        '![holiday.jpg](/attachments/ID/holiday.jpg)\n\n' +
        '*gone.jpg: the file is missing from the Takeout.*\n\n' +
        '- [Lisbon (city)](<https://en.wikipedia.org/wiki/Lisbon>)\n' +
        '- <https://example.com/a b>',
      tags: ['archived', 'color:teal'],
      isPinned: false,
      trashed: false,
      createdOn: '2023-05-01T08:00:00.000Z',
      updatedOn: '2023-05-03T09:00:00.000Z',
      files: [
        { name: '1a2b3c4d5e.png', bytes: PNG_BYTES },
        { name: 'recording.m4a', bytes: M4A_BYTES },
        { name: 'holiday.jpg', bytes: PNG_BYTES },
      ],
    },
  )

  const old = base('', '2020-01-01T00:00:00.000Z', '2021-06-01T12:00:00.000Z')
  delete old.createdTimestampUsec
  note(
    '2021-06-01T12_00_00.000Z',
    { ...old, isTrashed: true, userEditedTimestampUsec: String(old.userEditedTimestampUsec), textContent: 'untitled' },
    {
      title: '',
      content: 'untitled',
      tags: [],
      isPinned: false,
      trashed: true,
      createdOn: '2021-06-01T12:00:00.000Z',
      updatedOn: '2021-06-01T12:00:00.000Z',
      files: [],
    },
  )

  // Skipped: its edit time is not a number of microseconds.
  note('Broken time', {
    ...base('Broken time', '2023-01-01T00:00:00Z', '2023-01-01T00:00:00Z'),
    userEditedTimestampUsec: 'yesterday',
    textContent: 'x',
  })
  // Not a note: Takeout's own JSON beside the notes is ignored.
  files.push({ path: `${folder}/Labels.json`, bytes: JSON.stringify({ labels: [{ name: 'Home' }] }) })
  files.push({ path: `${folder}/Labels.txt`, bytes: 'Home\nShopping list\n' })
  return { files, expected }
}
