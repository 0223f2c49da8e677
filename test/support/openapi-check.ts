// Checks an actual response against what the app's own OpenAPI document says for that route
// and status: the status must be documented, the content type must be one the document lists,
// documented headers must be present, and the body must validate against the documented schema
// (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses). The harness runs it after every request, so
// every suite proves that the document and the code agree.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'

interface Media {
  schema?: object
}
interface DocumentedResponse {
  content?: Record<string, Media>
  headers?: Record<string, unknown>
}
interface Document {
  paths?: Record<string, Record<string, { responses?: Record<string, DocumentedResponse> }>>
}

export interface ActualResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  json: unknown
}

export type ResponseCheck = (method: string, url: string, response: ActualResponse) => void

function templateMatcher(template: string): RegExp {
  const pattern = template
    .split(/\{[^}]+\}/)
    .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
    .join('[^/]+')
  return new RegExp(`^${pattern}/?$`)
}

export function responseChecker(document: unknown): ResponseCheck {
  const doc = document as Document
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  const validators = new Map<string, ValidateFunction>()
  // Fewer parameters first, so a template never shadows a more literal path (`/x/{id}/thumbnail` before `/x/{id}/{*}`).
  const parameters = (template: string) => template.split('{').length
  const templates = Object.keys(doc.paths ?? {})
    .sort((a, b) => parameters(a) - parameters(b))
    .map((template) => ({ template, matcher: templateMatcher(template) }))

  return (method, url, response) => {
    const verb = method.toLowerCase()
    if (verb === 'head' || verb === 'options') return // CORS preflight and HEAD are not documented operations
    const path = url.split('?')[0] ?? url
    const template = templates.find((t) => t.matcher.test(path))?.template
    const operation = template ? doc.paths?.[template]?.[verb] : undefined
    if (!template || !operation) return // not an operation of the document: unknown route (404), /docs, /openapi.json
    const where = `${method} ${url} → ${response.status}`
    const documented = operation.responses?.[String(response.status)]
    if (!documented)
      throw new Error(`${where}: status ${response.status} is not documented for ${verb.toUpperCase()} ${template}`)
    for (const header of Object.keys(documented.headers ?? {})) {
      if (response.headers[header.toLowerCase()] === undefined)
        throw new Error(`${where}: documented header ${header} is missing`)
    }
    if (!documented.content) {
      if (response.text !== '')
        throw new Error(`${where}: documented without a body, got ${response.text.slice(0, 200)}`)
      return
    }
    const mediaType =
      String(response.headers['content-type'] ?? '')
        .split(';')[0]
        ?.trim() ?? ''
    // A file's answer documents any type (`*/*`): its type is the file's own.
    const media = documented.content[mediaType] ?? documented.content['*/*']
    if (!media)
      throw new Error(
        `${where}: content type "${mediaType}" is not documented (${Object.keys(documented.content).join(', ')})`,
      )
    if (!media.schema) return
    const key = `${verb} ${template} ${response.status} ${mediaType}`
    let validate = validators.get(key)
    if (!validate) {
      validate = ajv.compile(media.schema)
      validators.set(key, validate)
    }
    // JSON lines (application/x-ndjson) are text, one JSON document per line: checked as a string.
    const isJson = mediaType === 'application/json' || mediaType.endsWith('+json')
    if (isJson && response.json === undefined)
      throw new Error(`${where}: body is not JSON: ${response.text.slice(0, 200)}`)
    if (!validate(isJson ? response.json : response.text)) {
      throw new Error(
        `${where}: body ${response.text.slice(0, 300)} does not match the documented schema: ${ajv.errorsText(validate.errors)}`,
      )
    }
  }
}
