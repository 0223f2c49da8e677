// Migration 17 moves a live note's feed position from note_changes into its own row (docs/sync.md, "The change
// feed"). A database written at version 16 through its triggers (adds, edits, a deletion, a note deleted and added
// again, two accounts) answers the same feed after the upgrade: the epoch, floor and head, and every change with its
// number and its note; and a cursor given out before the upgrade reads exactly the changes made after it.
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import pg from 'pg'
import { migratePostgres, openPostgresStore } from '../src/store/postgres/index.js'
import { migrations as postgresMigrations } from '../src/store/postgres/migrations.js'
import { migrateSqlite, openSqliteDatabase, openSqliteStore } from '../src/store/sqlite/index.js'
import { migrations as sqliteMigrations } from '../src/store/sqlite/migrations.js'
import type { ChangePage } from '../src/store/types.js'
import type { StoreDriver } from '../src/store/driver.js'
import { type TestDatabase, createTestDatabase, serviceAvailable } from './support/services.js'
import { tempDir } from './support/temp.js'

const ACCOUNTS = ['u1', 'u2']
const BEFORE = 16

type Feed = {
  epoch: string
  floor: number
  head: number
  changes: Array<{ seq: number; noteId: string; json: string | null }>
}

const note = (id: string, userId: string, title: string) => ({
  id,
  userId,
  title,
  content: `content of ${title}`,
  tags: ['t'],
  isPinned: false,
  createdOn: '2026-01-01T00:00:00.000Z',
  updatedOn: '2026-01-01T00:00:00.000Z',
})

/** The writes made at version 16, as SQL statements with their parameters, in order. */
function writesAt16(
  placeholder: (i: number) => string,
  tags: (t: string[]) => unknown,
  pinned: (b: boolean) => unknown,
) {
  const insert = (n: ReturnType<typeof note>) =>
    [
      `INSERT INTO notes (id, user_id, title, content, tags, is_pinned, created_on, updated_on) VALUES (${[1, 2, 3, 4, 5, 6, 7, 8].map(placeholder).join(', ')})`,
      [n.id, n.userId, n.title, n.content, tags(n.tags), pinned(n.isPinned), n.createdOn, n.updatedOn],
    ] as const
  return [
    ...ACCOUNTS.map(
      (u) =>
        [
          `INSERT INTO users (id, full_name, email, email_key, password_hash, created_on) VALUES (${[1, 2, 3, 4, 5, 6].map(placeholder).join(', ')})`,
          [u, u, `${u}@x.example`, `${u}@x.example`, 'hash', '2026-01-01T00:00:00.000Z'],
        ] as const,
    ),
    insert(note('n1', 'u1', 'one')),
    insert(note('n2', 'u1', 'two')),
    insert(note('n3', 'u1', 'three')),
    insert(note('m1', 'u2', 'other')),
    [`UPDATE notes SET title = 'two, edited' WHERE id = ${placeholder(1)}`, ['n2']] as const,
    [`DELETE FROM notes WHERE id = ${placeholder(1)}`, ['n3']] as const,
    [`DELETE FROM notes WHERE id = ${placeholder(1)}`, ['n1']] as const,
    insert(note('n1', 'u1', 'one, back')),
    insert(note('n4', 'u1', 'four')),
  ]
}

const shape = (page: ChangePage | undefined): Feed => {
  assert.ok(page)
  return {
    epoch: page.epoch,
    floor: page.floor,
    head: page.head,
    changes: page.changes.map(({ seq, noteId, json }) => ({ seq, noteId, json })),
  }
}

/** After the upgrade: the same feed, and the old head reads what is written next, and nothing else. */
async function checkUpgraded(store: StoreDriver, before: Record<string, Feed>): Promise<void> {
  for (const u of ACCOUNTS) assert.deepEqual(shape(await store.changesSince(u, 0, 1000)), before[u], `the feed of ${u}`)
  const head = before.u1!.head
  const { id, ...fields } = note('n5', 'u1', 'five')
  assert.equal(await store.insertNote({ _id: id, ...fields }), true)
  assert.ok(await store.deleteNote('u1', 'n2', { trashedOn: '2026-01-02T00:00:00.000Z' }))
  const next = shape(await store.changesSince('u1', head, 1000))
  assert.deepEqual(
    next.changes.map((c) => [c.noteId, c.json === null]),
    [
      ['n5', false],
      ['n2', true],
    ],
  )
  assert.ok(next.changes[0]!.seq > head)
  assert.equal(next.head, next.changes[1]!.seq)
  assert.deepEqual(
    shape(await store.changesSince('u2', before.u2!.head, 1000)).changes,
    [],
    "another account's writes are not in it",
  )
}

describe('migration 17 keeps every feed (sqlite)', () => {
  const dir = tempDir()
  after(() => dir.remove())

  it('answers the feed of version 16, and a cursor of version 16 reads on', async () => {
    const db = openSqliteDatabase({ dataDir: dir.path })
    migrateSqlite(
      db,
      sqliteMigrations.filter((m) => m.version <= BEFORE),
    )
    for (const [sql, params] of writesAt16(
      () => '?',
      (t) => JSON.stringify(t),
      (b) => (b ? 1 : 0),
    ))
      db.prepare(sql).run(...params)
    const before: Record<string, Feed> = {}
    for (const u of ACCOUNTS) {
      const feed = db.prepare('SELECT epoch, floor, head FROM note_feeds WHERE user_id = ?').get(u) as Omit<
        Feed,
        'changes'
      >
      const changes = db
        .prepare(
          `SELECT c.seq, c.note_id AS noteId, n.json FROM note_changes c LEFT JOIN notes n ON n.user_id = c.user_id AND n.id = c.note_id
         WHERE c.user_id = ? ORDER BY c.seq`,
        )
        .all(u) as Feed['changes']
      before[u] = { ...feed, changes }
    }
    assert.deepEqual(
      before.u1!.changes.map((c) => c.noteId),
      ['n2', 'n3', 'n1', 'n4'],
    )
    db.close()

    const store = openSqliteStore({ dataDir: dir.path })
    try {
      await checkUpgraded(store, before)
    } finally {
      await store.close()
    }
  })
})

if (serviceAvailable('postgresql')) {
  describe('migration 17 keeps every feed (postgresql)', () => {
    let database: TestDatabase | undefined
    after(async () => database?.drop())

    it('answers the feed of version 16, and a cursor of version 16 reads on', async () => {
      database = await createTestDatabase()
      const client = new pg.Client({ connectionString: database.url })
      await client.connect()
      const before: Record<string, Feed> = {}
      try {
        await migratePostgres(
          client,
          postgresMigrations.filter((m) => m.version <= BEFORE),
        )
        for (const [sql, params] of writesAt16(
          (i) => `$${i}`,
          (t) => t,
          (b) => b,
        ))
          await client.query(sql, [...params])
        for (const u of ACCOUNTS) {
          type Row = {
            epoch: string
            floor: string
            head: string
            seq: string | null
            note_id: string | null
            json: string | null
          }
          const { rows } = await client.query<Row>('SELECT * FROM feed_page($1, 0, 1000, false)', [u])
          const first = rows[0]!
          const changes = rows
            .filter((r) => r.seq !== null)
            .map((r) => ({ seq: Number(r.seq), noteId: r.note_id ?? '', json: r.json }))
          before[u] = { epoch: first.epoch, floor: Number(first.floor), head: Number(first.head), changes }
        }
        assert.deepEqual(
          before.u1!.changes.map((c) => c.noteId),
          ['n2', 'n3', 'n1', 'n4'],
        )
      } finally {
        await client.end()
      }

      const store = await openPostgresStore({ url: database.url })
      try {
        await checkUpgraded(store, before)
      } finally {
        await store.close()
      }
    })
  })
}
