// The web app's reading of POST /import-notes's streamed answer (web/src/import-lines.ts): lines
// cut anywhere by the network read the same as the whole answer, a line waits for its end, and
// what the account page says of an import's progress and summary (import-wording.ts).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { type ImportLine, ImportLines, UNREADABLE_LINE, readLine } from '../web/src/import-lines.js'
import { dispositionName } from '../web/src/disposition.js'
import {
  importingText,
  keptText,
  skippedHeading,
  summaryCounts,
  summaryHeadline,
} from '../web/src/components/account/import-wording.js'

const progress = (items: number, imported: number, alreadyPresent = 0, skipped = 0, attachments = 0) => ({
  progress: { items, imported, alreadyPresent, skipped, attachments },
})
const summary = {
  format: 'Google Keep',
  dryRun: false,
  items: 3,
  imported: 1,
  alreadyPresent: 1,
  attachments: 2,
  skipped: [{ label: 'Takeout/Keep/Broken.json', reason: 'not a Keep note: no "title" or "textContent"' }],
  skippedCount: 1,
  stopped: null,
}

/** The answer cut at `cuts` (positions into it), each piece added to what was received before. */
function readInPieces(answer: string, cuts: number[]): ImportLine[] {
  const lines = new ImportLines()
  const found: ImportLine[] = []
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) found.push(...lines.take(answer.slice(0, cut)))
  found.push(...lines.finish(answer))
  return found
}

describe('the streamed answer of an import', () => {
  const answer = [progress(1, 1), progress(3, 1, 1, 1, 2), { summary }].map((v) => JSON.stringify(v)).join('\n') + '\n'

  it('reads progress lines and the summary, in order', () => {
    assert.deepEqual(readInPieces(answer, []), [progress(1, 1), progress(3, 1, 1, 1, 2), { summary }])
  })

  it('reads the same lines however the network cuts the text, a line only once it has ended', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: answer.length }), { maxLength: 12 }), (cuts) => {
        assert.deepEqual(readInPieces(answer, cuts), readInPieces(answer, []))
      }),
      { numRuns: 300 },
    )
    const lines = new ImportLines()
    const first = JSON.stringify(progress(1, 1))
    assert.deepEqual(lines.take(first.slice(0, 10)), [], 'half a line waits')
    assert.deepEqual(lines.take(first), [], 'a whole line with no newline yet waits too')
    assert.deepEqual(lines.take(`${first}\n`), [progress(1, 1)])
    assert.deepEqual(lines.take(`${first}\n`), [], 'nothing twice')
  })

  it('reads a last line that has no newline once the answer is complete', () => {
    const lines = new ImportLines()
    const text = `${JSON.stringify(progress(2, 2))}\n${JSON.stringify({ summary })}`
    assert.deepEqual(lines.take(text), [progress(2, 2)])
    assert.deepEqual(lines.finish(text), [{ summary }])
  })

  it('turns the error line into the failure, in the API’s words, and an unreadable line into a failure of its own', () => {
    assert.deepEqual(readLine('{"error":true,"message":"Takeout/Keep/x.json: unexpected end of JSON"}'), {
      failed: 'Takeout/Keep/x.json: unexpected end of JSON',
    })
    assert.deepEqual(readLine('{"progress": {"items"'), { failed: UNREADABLE_LINE })
    assert.deepEqual(readLine('[1, 2]'), { failed: UNREADABLE_LINE })
  })

  it('passes over blank lines and objects of kinds it does not know, and fills what a line lacks', () => {
    assert.equal(readLine('   '), undefined)
    assert.equal(readLine('{"heartbeat": true}'), undefined)
    assert.deepEqual(readLine('{"progress": {"items": 4}}'), progress(4, 0))
    assert.deepEqual(readLine('{"summary": {"format": "Evernote", "skipped": [{"label": "a"}, 7]}}'), {
      summary: {
        format: 'Evernote',
        dryRun: false,
        items: 0,
        imported: 0,
        alreadyPresent: 0,
        attachments: 0,
        skipped: [{ label: 'a', reason: '' }],
        skippedCount: 1,
        stopped: null,
      },
    })
  })
})

describe('what the account page says of an import', () => {
  it('counts the items read as they come, naming only the counts there are', () => {
    assert.equal(importingText('keep.zip', undefined), 'Importing “keep.zip”…')
    assert.equal(importingText('keep.zip', progress(1, 1).progress), 'Importing “keep.zip”… 1 item read: 1 imported')
    assert.equal(
      importingText('keep.zip', progress(120, 100, 15, 5).progress),
      'Importing “keep.zip”… 120 items read: 100 imported, 15 already here, 5 skipped',
    )
  })

  it('names the file and its format, says when the import stopped before the end, and counts in words', () => {
    assert.equal(summaryHeadline('keep.zip', summary), 'Imported “keep.zip” (Google Keep).')
    assert.equal(
      summaryHeadline('keep.zip', { ...summary, imported: 0, alreadyPresent: 2 }),
      'Nothing new in “keep.zip” (Google Keep).',
    )
    assert.equal(
      summaryHeadline('keep.zip', { ...summary, stopped: 'The account’s quota is reached after 1 of 3 notes' }),
      'The import of “keep.zip” (Google Keep) stopped before the end.',
    )
    assert.deepEqual(summaryCounts(summary), [
      ['Imported', '1 note'],
      ['Already here', '1 note'],
      ['Attachments', '2 files'],
      ['Skipped', '1 item'],
    ])
  })

  it('says what an import that stopped part-way leaves', () => {
    assert.equal(
      keptText(progress(80, 75, 3, 2).progress),
      'The 75 notes imported before that stay. Importing the same file again adds only the notes not yet here.',
    )
    assert.equal(keptText(undefined), 'Importing the same file again adds only the notes not yet here.')
  })

  it('heads the skipped list with the count of all skipped items, saying when it lists only the first', () => {
    assert.equal(skippedHeading(summary), '1 item skipped, and why')
    const many = { ...summary, skipped: Array.from({ length: 100 }, () => summary.skipped[0]!), skippedCount: 250 }
    assert.equal(skippedHeading(many), '250 items skipped, and why (the first 100)')
    assert.deepEqual(summaryCounts(many).at(-1), ['Skipped', '250 items'])
  })
})

describe('the export’s file name', () => {
  it('is the Content-Disposition’s filename*, else its filename, quoted or not', () => {
    assert.equal(dispositionName('attachment; filename="notes-2025-01-31.zip"'), 'notes-2025-01-31.zip')
    assert.equal(dispositionName('attachment; filename=notes.zip'), 'notes.zip')
    assert.equal(
      dispositionName(`attachment; filename="notes.zip"; filename*=UTF-8''notes%20%C3%A9t%C3%A9.zip`),
      'notes été.zip',
    )
    assert.equal(dispositionName('attachment'), undefined)
    assert.equal(dispositionName(null), undefined)
  })
})
