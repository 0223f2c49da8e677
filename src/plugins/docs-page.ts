// Renders the API reference page (/docs) from the generated OpenAPI document: plain HTML with
// inline CSS, no script and no asset from anywhere, so it renders where there is no internet and
// under a Content-Security-Policy that forbids loading anything. It reads only the parts of the
// document that plugins/openapi.ts and the route schemas produce.

type Schema = Record<string, unknown>

interface MediaType {
  schema?: Schema
}
interface Response {
  description?: string
  content?: Record<string, MediaType>
  headers?: Record<string, { schema?: Schema; description?: string }>
}
interface Parameter {
  name: string
  in: string
  required?: boolean
  description?: string
  schema?: Schema
}
interface Operation {
  summary?: string
  description?: string
  operationId?: string
  tags?: string[]
  security?: Array<Record<string, string[]>>
  parameters?: Parameter[]
  requestBody?: { required?: boolean; content?: Record<string, MediaType> }
  responses?: Record<string, Response>
}
export interface OpenApiDocument {
  openapi: string
  tags?: Array<{ name: string; description?: string }>
  info: { title: string; version: string; description?: string }
  paths?: Record<string, Record<string, Operation>>
  components?: { securitySchemes?: Record<string, { type?: string; scheme?: string; description?: string }> }
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete']

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/** A short reading of a JSON Schema, e.g. `{ error: true, message: string }`. */
export function describeSchema(schema: Schema | undefined, indent = ''): string {
  if (!schema) return 'any'
  if ('const' in schema) return JSON.stringify(schema.const)
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ')
  const union = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined
  if (Array.isArray(union)) return union.map((s) => describeSchema(s, indent)).join(`\n${indent}| `)
  const limits: string[] = []
  if (typeof schema.maxLength === 'number') limits.push(`at most ${schema.maxLength} characters`)
  if (typeof schema.maxItems === 'number') limits.push(`at most ${schema.maxItems} items`)
  const note = limits.length ? ` (${limits.join(', ')})` : ''
  if (schema.type === 'array') return `${describeSchema(schema.items as Schema, indent)}[]${note}`
  if (schema.type === 'object' || schema.properties) {
    const properties = (schema.properties ?? {}) as Record<string, Schema>
    const required = new Set((schema.required ?? []) as string[])
    const inner = indent + '  '
    const lines = Object.entries(properties).map(
      ([name, s]) => `${inner}${name}${required.has(name) ? '' : '?'}: ${describeSchema(s, inner)}`,
    )
    return lines.length ? `{\n${lines.join(',\n')}\n${indent}}${note}` : `{}${note}`
  }
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : typeof schema.type === 'string' ? schema.type : 'any'
  return `${type}${note}`
}

function anchor(method: string, path: string): string {
  return `${method}-${path}`.replace(/[^A-Za-z0-9]+/g, '-').replace(/-+$/, '')
}

function renderContent(content: Record<string, MediaType> | undefined): string {
  if (!content) return '<p class="muted">No body.</p>'
  return Object.entries(content)
    .map(([type, media]) => `<p class="muted">${escape(type)}</p><pre>${escape(describeSchema(media.schema))}</pre>`)
    .join('')
}

function renderOperation(method: string, path: string, op: Operation): string {
  const parts = [
    `<section class="operation" id="${anchor(method, path)}">`,
    `<h3><span class="method ${method}">${method.toUpperCase()}</span> <code>${escape(path)}</code></h3>`,
  ]
  if (op.summary) parts.push(`<p><strong>${escape(op.summary)}</strong></p>`)
  if (op.description) parts.push(`<p>${escape(op.description)}</p>`)
  parts.push(
    op.security?.length
      ? '<p class="auth">Requires <code>Authorization: Bearer &lt;accessToken&gt;</code>.</p>'
      : '<p class="auth">No authentication.</p>',
  )
  if (op.parameters?.length) {
    const rows = op.parameters.map(
      (p) =>
        `<tr><td><code>${escape(p.name)}</code></td><td>${escape(p.in)}</td><td>${p.required ? 'yes' : 'no'}</td>` +
        `<td><code>${escape(describeSchema(p.schema))}</code></td></tr>`,
    )
    parts.push('<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th>required</th><th>schema</th></tr>', ...rows, '</table>')
  }
  if (op.requestBody) parts.push('<h4>Request body</h4>', renderContent(op.requestBody.content))
  parts.push('<h4>Responses</h4>')
  for (const [status, response] of Object.entries(op.responses ?? {})) {
    parts.push(`<div class="response"><h5>${escape(status)} <span class="muted">${escape(response.description ?? '')}</span></h5>`)
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      parts.push(`<p>Header <code>${escape(name)}</code>: ${escape(header.description ?? describeSchema(header.schema))}</p>`)
    }
    parts.push(renderContent(response.content), '</div>')
  }
  parts.push('</section>')
  return parts.join('\n')
}

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#1d1d1f}
code,pre{font-family:ui-monospace,monospace}pre{background:#f5f5f7;padding:.6rem;overflow-x:auto;border-radius:4px}
.operation{border-top:1px solid #ddd;padding-top:.5rem;margin-top:1.5rem}.method{display:inline-block;min-width:4.5em;
padding:0 .4em;border-radius:3px;color:#fff;background:#555;font-size:.85em;text-align:center}.get{background:#1a7f37}
.post{background:#0969da}.put{background:#9a6700}.delete{background:#cf222e}.muted{color:#666;font-weight:normal}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.2rem .5rem;text-align:left}h5{margin:.8rem 0 .2rem;font-size:1em}`

export function renderDocsPage(doc: OpenApiDocument): string {
  const operations: Array<[string, string, Operation]> = []
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) if (item[method]) operations.push([method, path, item[method]])
  }
  // In the order of the document's tags (accounts, notes, operations), then as registered.
  const tagOrder = (op: Operation) => {
    const i = (doc.tags ?? []).findIndex((t) => t.name === op.tags?.[0])
    return i < 0 ? Number.MAX_SAFE_INTEGER : i
  }
  operations.sort((a, b) => tagOrder(a[2]) - tagOrder(b[2]))
  const index = operations.map(
    ([method, path, op]) =>
      `<li><a href="#${anchor(method, path)}">${method.toUpperCase()} <code>${escape(path)}</code></a> ${escape(op.summary ?? '')}</li>`,
  )
  const schemes = Object.entries(doc.components?.securitySchemes ?? {}).map(
    ([name, s]) => `<li><code>${escape(name)}</code>: ${escape(s.type ?? '')} ${escape(s.scheme ?? '')}. ${escape(s.description ?? '')}</li>`,
  )
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(doc.info.title)} API reference</title><style>${STYLE}</style></head>
<body><h1>${escape(doc.info.title)} API reference</h1>
<p>${escape(doc.info.description ?? '')}</p>
<p class="muted">OpenAPI ${escape(doc.openapi)}, document version ${escape(doc.info.version)}.
The machine-readable document is <a href="/openapi.json">/openapi.json</a>.</p>
<h2>Authentication</h2><ul>${schemes.join('\n')}</ul>
<h2>Endpoints</h2><ul>${index.join('\n')}</ul>
${operations.map(([method, path, op]) => renderOperation(method, path, op)).join('\n')}
</body></html>
`
}
