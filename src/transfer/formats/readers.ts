// The formats the import reads, in the order their probes are tried: notes-service's own exports first (their
// manifest or files name them), then the apps' exports by their shapes, and loose Markdown last, as any folder
// holding a .md file would pass its probe.
import { enexFormat } from './enex.js'
import type { ArchiveFormat } from './items.js'
import { keepFormat } from './keep.js'
import { markdownFormat } from './markdown-vault.js'
import { ownJsonFormat } from './own-json.js'
import { ownMarkdownFormat } from './own-markdown.js'
import { simplenoteFormat } from './simplenote.js'
import { standardNotesFormat } from './standard-notes.js'

export const IMPORT_READERS: readonly ArchiveFormat[] = [
  ownMarkdownFormat,
  ownJsonFormat,
  keepFormat,
  simplenoteFormat,
  standardNotesFormat,
  enexFormat,
  markdownFormat,
]
