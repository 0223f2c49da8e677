// A Simplenote export as its "Export notes" writes it: source/notes.json with every note, one .txt per note beside
// it (trashed ones under trash/), and the notes each should become (docs/migration.md, "Simplenote").
import type { ExpectedImport, FixtureFile } from './archive-files.js'

/** The format has no files. */
export type ExpectedSimplenote = Omit<ExpectedImport, 'files'>

export type SimplenoteJson = Record<string, unknown>

export function simplenoteExport(): { notesJson: string; files: FixtureFile[]; expected: ExpectedSimplenote[] } {
  const activeNotes: SimplenoteJson[] = [
    {
      id: 'a1b2c3d4e5f6',
      content: 'Shopping\r\n\r\n\r\n- milk\r\n- bread\r\n',
      creationDate: '2022-02-01T09:00:00.000Z',
      lastModified: '2022-02-03T10:15:00.250Z',
      tags: ['home', 'lists'],
      pinned: true,
    },
    {
      id: 'f6e5d4c3b2a1',
      content: '# Markdown note\n\nSome **bold** text',
      creationDate: '2023-07-01T00:00:00.000Z',
      lastModified: '2023-07-02T00:00:00.000Z',
      markdown: true,
      publicURL: 'http://simp.ly/p/abc123',
    },
    {
      id: 'only-title',
      content: '   Just a title   ',
      creationDate: '2023-01-01T00:00:00.000Z',
      lastModified: '2023-01-01T00:00:00.000Z',
    },
    { id: 'bad-date', content: 'Bad\nx', creationDate: 'someday', lastModified: '2023-01-01T00:00:00.000Z' },
  ]
  const trashedNotes: SimplenoteJson[] = [
    {
      id: '0123abcd',
      content: 'Old idea\nnever mind',
      creationDate: '2020-05-05T05:05:05.000Z',
      lastModified: '2020-05-06T05:05:05.000Z',
      tags: [],
    },
  ]
  const notesJson = JSON.stringify({ activeNotes, trashedNotes }, null, 2)
  const files: FixtureFile[] = [
    { path: 'source/notes.json', bytes: notesJson },
    ...activeNotes.map((note) => ({ path: `${String(note.id)}.txt`, bytes: String(note.content) })),
    ...trashedNotes.map((note) => ({ path: `trash/${String(note.id)}.txt`, bytes: String(note.content) })),
  ]
  const expected: ExpectedSimplenote[] = [
    {
      key: 'simplenote:a1b2c3d4e5f6',
      title: 'Shopping',
      content: '- milk\r\n- bread\r\n',
      tags: ['home', 'lists'],
      isPinned: true,
      trashed: false,
      createdOn: '2022-02-01T09:00:00.000Z',
      updatedOn: '2022-02-03T10:15:00.250Z',
    },
    {
      key: 'simplenote:f6e5d4c3b2a1',
      title: 'Markdown note',
      content: 'Some **bold** text',
      tags: [],
      isPinned: false,
      trashed: false,
      createdOn: '2023-07-01T00:00:00.000Z',
      updatedOn: '2023-07-02T00:00:00.000Z',
    },
    {
      key: 'simplenote:only-title',
      title: 'Just a title',
      content: '',
      tags: [],
      isPinned: false,
      trashed: false,
      createdOn: '2023-01-01T00:00:00.000Z',
      updatedOn: '2023-01-01T00:00:00.000Z',
    },
    {
      key: 'simplenote:0123abcd',
      title: 'Old idea',
      content: 'never mind',
      tags: [],
      isPinned: false,
      trashed: true,
      createdOn: '2020-05-05T05:05:05.000Z',
      updatedOn: '2020-05-06T05:05:05.000Z',
    },
  ]
  return { notesJson, files, expected }
}
