// The email key (docs/compatibility.md, "The email key"): trimmed, NFKC, then lower-cased; the
// same on both stores, over HTTP. And the migrations that recompute stored keys (SQLite 4, PostgreSQL 6): collisions,
// keys that move onto each other's old ones, and (SQLite) text stored with lone surrogates.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import { buildApp } from '../src/app.js'
import { emailKeyOf } from '../src/services/accounts.js'
import { defaultPasswordHasher } from '../src/services/passwords.js'
import { migratedEmailKey, planKeys, unreachableKey } from '../src/store/email-rekey.js'
import { migrateDatabase, openPostgresStore } from '../src/store/postgres/index.js'
import { migrations as postgresMigrations } from '../src/store/postgres/migrations.js'
import { encodeText } from '../src/store/postgres/rows.js'
import { migrateSqlite, openSqliteDatabase, openSqliteStore } from '../src/store/sqlite/index.js'
import { migrations as sqliteMigrations } from '../src/store/sqlite/migrations.js'
import type { Store } from '../src/store/types.js'
import { notWellFormedMessage } from '../src/unicode.js'
import { TEST_SECRET, testConfig } from './support/harness.js'
import { createTestDatabase, serviceAvailable } from './support/services.js'
import { makeNote } from './support/store-contract.js'
import { SERVICE_LIMITS, openTestStore, storeKinds } from './support/stores.js'
import { tempDir } from './support/temp.js'
import { listedNotes } from './support/listed.js'

const utf8 = new TextDecoder('utf-8', { fatal: true })

async function appOn(store: Store): Promise<FastifyInstance> {
  const app = await buildApp({
    config: testConfig({ bruteForce: { ...testConfig().bruteForce, enabled: false } }),
    store,
    secret: TEST_SECRET,
  })
  await app.ready()
  return app
}

async function post(
  app: FastifyInstance,
  url: string,
  payload: object,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await app.inject({ method: 'POST', url, payload })
  return { status: res.statusCode, json: JSON.parse(utf8.decode(res.rawPayload)) as Record<string, unknown> }
}

describe('the email key rule', () => {
  // Every code point, lone surrogates and non-BMP ones included.
  const anyText = fc.string({
    unit: fc.oneof(
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
      fc.integer({ min: 0xd800, max: 0xdfff }).map((u) => String.fromCharCode(u)),
    ),
  })

  it('is the rule the migrations recompute stored keys with', () => {
    fc.assert(
      fc.property(anyText, (email) => emailKeyOf(email) === migratedEmailKey(email)),
      { numRuns: 2000 },
    )
  })

  it("never makes a key with a capital A-Z, so the migrations' UNREACHABLE and MIGRATING keys cannot be reached", () => {
    fc.assert(
      fc.property(anyText, (email) => !/[A-Z]/.test(emailKeyOf(email))),
      { numRuns: 2000 },
    )
  })

  it('gives the same key to compatibility look-alikes and case variants, and to nothing else listed', () => {
    const same: Array<[string, string]> = [
      ['kim@example.com', '\u212Aim@example.com'], // KELVIN SIGN
      ['kim@example.com', '\uFF2Bim@example.com'], // FULLWIDTH LATIN CAPITAL LETTER K
      ['kim@example.com', '  KIM@Example.COM\u00A0'],
      ['fiona@example.com', '\uFB01ona@example.com'], // LATIN SMALL LIGATURE FI
      ['jos\u00E9@example.com', 'jose\u0301@example.com'], // composed and decomposed é
      ['a2@example.com', 'a\u00B2@example.com'], // SUPERSCRIPT TWO
    ]
    for (const [a, b] of same) assert.equal(emailKeyOf(a), emailKeyOf(b), `${a} / ${b}`)
    const different: Array<[string, string]> = [
      ['strasse@example.com', 'stra\u00DFe@example.com'], // lower-casing, not case folding: ß stays ß
      ['kim@example.com', 'k\u00EDm@example.com'],
      ['i@example.com', '\u0130@example.com'], // İ lower-cases to i + U+0307 in every locale
    ]
    for (const [a, b] of different) assert.notEqual(emailKeyOf(a), emailKeyOf(b), `${a} / ${b}`)
  })

  it('plans keys: an unchanged holder keeps its key, else the oldest changed account; a key given up can be taken', () => {
    const user = (id: string, emailKey: string, newKey: string, createdOn: string) => ({
      id,
      email: newKey,
      emailKey,
      newKey,
      createdOn,
    })
    const changed = [
      user('newer', 'x-old', 'x', '2021'),
      user('older', 'x-old2', 'x', '2020'),
      user('p', 'a', 'b', '2019'), // takes b, which q gives up
      user('q', 'b', 'c', '2022'),
      user('r', 'r-old', 'kept', '2018'), // an unchanged account holds "kept"
    ]
    const plan = planKeys(
      changed,
      new Map([
        ['b', 'q'],
        ['kept', 'holder'],
      ]),
    )
    assert.deepEqual(plan.keys, [
      { id: 'r', key: unreachableKey('r', 'holder') },
      { id: 'p', key: 'b' },
      { id: 'older', key: 'x' },
      { id: 'newer', key: unreachableKey('newer', 'older') },
      { id: 'q', key: 'c' },
    ])
    assert.deepEqual(
      plan.unreachable.map((u) => [u.user.id, u.holderId]),
      [
        ['r', 'holder'],
        ['newer', 'older'],
      ],
    )
  })
})

for (const kind of storeKinds()) {
  describe(`email keys over HTTP (${kind})`, () => {
    let store: Store
    let app: FastifyInstance
    before(async () => {
      store = await openTestStore(kind, true, SERVICE_LIMITS)
      app = await appOn(store)
    })
    after(async () => {
      await app.close()
      await store.close()
    })

    // [registered, then tried]: the same account when their keys are equal.
    const table: Array<[string, string, boolean]> = [
      ['kim@example.com', '\u212Aim@example.com', true],
      ['kai@example.com', '\uFF4Bai@example.com', true],
      ['\uFB01ona@example.com', 'FIONA@example.com', true],
      ['jose\u0301@example.com', 'jos\u00E9@example.com', true],
      ['stra\u00DFe@example.com', 'strasse@example.com', false],
      ['ivy@example.com', '\u0130vy@example.com', false],
    ]
    for (const [registered, tried, same] of table) {
      it(`${JSON.stringify(registered)} then ${JSON.stringify(tried)}: ${same ? 'one account' : 'two accounts'}`, async () => {
        const first = await post(app, '/create-account', { fullName: 'First', email: registered, password: 'first-pw' })
        assert.equal(first.json.message, 'Registration Successful')
        const login = await post(app, '/login', { email: tried, password: 'first-pw' })
        if (same) {
          assert.equal(login.status, 200)
          assert.equal(login.json.email, registered, 'the email as submitted at registration')
        } else assert.deepEqual(login, { status: 400, json: { error: true, message: 'Invalid Credentials' } })
        const second = await post(app, '/create-account', { fullName: 'Second', email: tried, password: 'second-pw' })
        assert.equal(second.json.message, same ? 'User already exists' : 'Registration Successful')
      })
    }

    it('refuses an email with an unpaired surrogate, so variants of one cannot collide or log in to each other', async () => {
      await post(app, '/create-account', { fullName: 'Plain', email: 'lone@example.com', password: 'pw-a' })
      for (const email of ['lo\ud800ne@example.com', 'lo\udfffne@example.com']) {
        assert.deepEqual(await post(app, '/create-account', { fullName: 'S', email, password: 'pw-b' }), {
          status: 400,
          json: { error: true, message: notWellFormedMessage('email') },
        })
        assert.deepEqual(await post(app, '/login', { email, password: 'pw-a' }), {
          status: 400,
          json: { error: true, message: notWellFormedMessage('email') },
        })
      }
    })
  })
}

/** Accounts as the old rule (trim, lower-case) keyed them, to be migrated. */
interface OldUser {
  id: string
  email: string
  emailKey: string
  createdOn: string
  password: string
}

const oldUsers: OldUser[] = [
  // The full-width k account is older, but the plain one's key does not change: the plain one keeps it.
  {
    id: 'a00000000000000000000001',
    email: '\uFF4Bim@example.com',
    emailKey: '\uFF4Bim@example.com',
    createdOn: '2020-01-01T00:00:00.000Z',
    password: 'pw-fullwidth',
  },
  {
    id: 'a00000000000000000000002',
    email: 'kim@example.com',
    emailKey: 'kim@example.com',
    createdOn: '2021-01-01T00:00:00.000Z',
    password: 'pw-plain',
  },
  // Both keys change to ab@example.com: the older account takes it.
  {
    id: 'a00000000000000000000003',
    email: '\uFF21b@example.com',
    emailKey: '\uFF41b@example.com',
    createdOn: '2020-06-01T00:00:00.000Z',
    password: 'pw-newer',
  },
  {
    id: 'a00000000000000000000004',
    email: 'a\uFF42@example.com',
    emailKey: 'a\uFF42@example.com',
    createdOn: '2019-06-01T00:00:00.000Z',
    password: 'pw-older',
  },
  // Changes without a collision.
  {
    id: 'a00000000000000000000005',
    email: '\uFB01@example.com',
    emailKey: '\uFB01@example.com',
    createdOn: '2020-01-01T00:00:00.000Z',
    password: 'pw-ligature',
  },
  // Unchanged: the Kelvin sign already lower-cased to k.
  {
    id: 'a00000000000000000000006',
    email: '\u212Aelvin@example.com',
    emailKey: 'kelvin@example.com',
    createdOn: '2020-01-01T00:00:00.000Z',
    password: 'pw-kelvin',
  },
  // Keys set by hand that the rule moves onto each other's: p takes the key q gives up.
  {
    id: 'a00000000000000000000007',
    email: 'chain-b@example.com',
    emailKey: 'chain-a@example.com',
    createdOn: '2018-01-01T00:00:00.000Z',
    password: 'pw-p',
  },
  {
    id: 'a00000000000000000000008',
    email: 'chain-c@example.com',
    emailKey: 'chain-b@example.com',
    createdOn: '2022-01-01T00:00:00.000Z',
    password: 'pw-q',
  },
]
const byId = (n: number) => oldUsers[n - 1]!

const expectedKeys: Record<string, string> = {
  a00000000000000000000001: unreachableKey(byId(1).id, byId(2).id),
  a00000000000000000000002: 'kim@example.com',
  a00000000000000000000003: unreachableKey(byId(3).id, byId(4).id),
  a00000000000000000000004: 'ab@example.com',
  a00000000000000000000005: 'fi@example.com',
  a00000000000000000000006: 'kelvin@example.com',
  a00000000000000000000007: 'chain-b@example.com',
  a00000000000000000000008: 'chain-c@example.com',
}

/** Opens the store (which migrates) while collecting the collision warnings it emits. */
async function migratingOpen(open: () => Promise<Store>): Promise<{ store: Store; warnings: string[] }> {
  const warnings: string[] = []
  const listener = (w: Error & { code?: string }) => {
    if (w.code === 'NOTES_SERVICE_EMAIL_KEY_COLLISION') warnings.push(w.message)
  }
  process.on('warning', listener)
  try {
    const store = await open()
    await new Promise((resolve) => setImmediate(resolve)) // warnings are emitted on the next tick
    return { store, warnings }
  } finally {
    process.off('warning', listener)
  }
}

async function assertMigratedAccounts(store: Store, warnings: string[]): Promise<void> {
  for (const u of oldUsers) {
    const stored = await store.findUserById(u.id)
    assert.equal(stored?.emailKey, expectedKeys[u.id], u.email)
    assert.equal(stored?.email, u.email, 'the email stays as submitted')
  }
  assert.equal(warnings.length, 2, warnings.join('\n'))
  assert.match(warnings.join('\n'), new RegExp(`account ${byId(1).id} .* as account ${byId(2).id}`))
  assert.match(warnings.join('\n'), new RegExp(`account ${byId(3).id} .* as account ${byId(4).id}`))

  const app = await appOn(store)
  try {
    const login = (email: string, password: string) => post(app, '/login', { email, password })
    assert.equal((await login('\u212Aim@example.com', 'pw-plain')).json.email, 'kim@example.com')
    assert.equal(
      (await login('\uFF4Bim@example.com', 'pw-fullwidth')).status,
      400,
      'the unreachable account cannot log in',
    )
    assert.equal((await login('AB@example.com', 'pw-older')).json.email, 'a\uFF42@example.com')
    assert.equal((await login('\uFF21b@example.com', 'pw-newer')).status, 400)
    assert.equal((await login('FI@example.com', 'pw-ligature')).json.email, '\uFB01@example.com')
    assert.equal((await login('kelvin@example.com', 'pw-kelvin')).status, 200)
    assert.equal((await login('chain-b@example.com', 'pw-p')).status, 200)
    assert.equal((await login('chain-c@example.com', 'pw-q')).status, 200)
    // The unreachable account keeps its notes, and its email cannot be registered again.
    assert.equal((await listedNotes(store, byId(1).id)).length, 1)
    assert.equal(
      (await post(app, '/create-account', { fullName: 'X', email: '\uFF4Bim@example.com', password: 'x' })).json
        .message,
      'User already exists',
    )
  } finally {
    await app.close()
  }
}

/** UTF-8 that writes a lone surrogate as the three bytes of its code point (WTF-8), as V8 did on Node.js 20. */
const wtf8 = (text: string) =>
  Buffer.concat(
    [...text].map((c) => {
      const u = c.codePointAt(0)!
      return u >= 0xd800 && u <= 0xdfff
        ? Buffer.from([0xe0 | (u >> 12), 0x80 | ((u >> 6) & 0x3f), 0x80 | (u & 0x3f)])
        : Buffer.from(c, 'utf8')
    }),
  )

const hashed = async () =>
  Promise.all(oldUsers.map(async (u) => ({ ...u, hash: await defaultPasswordHasher.hash(u.password) })))

describe('SQLite migration 6: email keys recomputed, lone-surrogate text made valid UTF-8', () => {
  const dir = tempDir()
  after(() => dir.remove())

  it('migrates keys as documented, and rewrites invalid UTF-8 as it has always been read', async () => {
    const dataDir = `${dir.path}/db`
    const db = openSqliteDatabase({ dataDir })
    migrateSqlite(
      db,
      sqliteMigrations.filter((m) => m.version < 6),
    )
    const insertUser = db.prepare('INSERT INTO users VALUES (?, ?, ?, ?, ?, ?)')
    for (const u of await hashed()) insertUser.run(u.id, 'Name', u.email, u.emailKey, u.hash, u.createdOn)
    // What the service stored before lone surrogates were refused: better-sqlite3 on Node.js 20
    // writes the bytes ED A0 80 for U+D800 (on 24 and 26, EF BF BD: U+FFFD), so these rows are
    // written as those bytes; JSON.stringify writes the tag as the escape "\ud800".
    db.prepare('INSERT INTO users VALUES (?, CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), ?, ?)').run(
      'a00000000000000000000009',
      wtf8('bad\ud800name'),
      wtf8('bad\udc00@example.com'),
      wtf8('bad\udc00@example.com'),
      'x',
      '2020-01-01T00:00:00.000Z',
    )
    const lone = makeNote(byId(1).id, { title: 'x\ud800y', content: 'c\udfff', tags: ['ok', '\ud800'] })
    db.prepare(
      'INSERT INTO notes (id, user_id, title, content, tags, is_pinned, created_on, updated_on) VALUES (?, ?, CAST(? AS TEXT), CAST(? AS TEXT), ?, 0, ?, ?)',
    ).run(
      lone._id,
      lone.userId,
      wtf8(lone.title),
      wtf8(lone.content),
      JSON.stringify(lone.tags),
      lone.createdOn,
      lone.updatedOn,
    )
    assert.deepEqual(
      db.prepare('SELECT CAST(title AS BLOB) FROM notes').pluck().get(),
      Buffer.from([0x78, 0xed, 0xa0, 0x80, 0x79]),
    )
    db.close()

    const { store, warnings } = await migratingOpen(async () => openSqliteStore({ dataDir, limits: SERVICE_LIMITS }))
    try {
      await assertMigratedAccounts(store, warnings)
      const R = '\uFFFD'
      assert.deepEqual(await store.findNote(byId(1).id, lone._id), {
        ...lone,
        title: `x${R}${R}${R}y`,
        content: `c${R}${R}${R}`,
        tags: ['ok', R],
      })
      // The listing is read from the stored JSON text (migration 2), not from the records above.
      const listed = JSON.parse(String(await store.listNotesJson(byId(1).id))) as { _id: string }[]
      assert.deepEqual(
        listed.find((n) => n._id === lone._id),
        { ...lone, title: `x${R}${R}${R}y`, content: `c${R}${R}${R}`, tags: ['ok', R] },
      )
      const repaired = await store.findUserById('a00000000000000000000009')
      assert.deepEqual(
        [repaired?.fullName, repaired?.email, repaired?.emailKey],
        [`bad${R}${R}${R}name`, `bad${R}${R}${R}@example.com`, `bad${R}${R}${R}@example.com`],
      )
    } finally {
      await store.close()
    }
    const again = openSqliteDatabase({ dataDir })
    assert.equal(migrateSqlite(again), 0)
    again.close()
  })
})

if (serviceAvailable('postgresql')) {
  describe('PostgreSQL migration 7: email keys recomputed', () => {
    it('migrates keys as documented', async () => {
      const db = await createTestDatabase()
      try {
        await migrateDatabase(
          { url: db.url },
          postgresMigrations.filter((m) => m.version < 7),
        )
        const client = new pg.Client({ connectionString: db.url })
        await client.connect()
        try {
          for (const u of await hashed()) {
            await client.query('INSERT INTO users VALUES ($1, $2, $3, $4, $5, $6)', [
              u.id,
              'Name',
              encodeText(u.email),
              encodeText(u.emailKey),
              u.hash,
              u.createdOn,
            ])
          }
          const note = makeNote(byId(1).id)
          await client.query(
            'INSERT INTO notes (id, user_id, title, content, tags, is_pinned, created_on, updated_on) VALUES ($1, $2, $3, $4, $5, false, $6, $7)',
            [note._id, note.userId, note.title, note.content, note.tags, note.createdOn, note.updatedOn],
          )
        } finally {
          await client.end()
        }
        const { store, warnings } = await migratingOpen(() =>
          openPostgresStore({ url: db.url, poolSize: 2, limits: SERVICE_LIMITS }),
        )
        try {
          await assertMigratedAccounts(store, warnings)
        } finally {
          await store.close()
        }
        assert.equal(await migrateDatabase({ url: db.url }), 0)
      } finally {
        await db.drop()
      }
    })
  })
}
