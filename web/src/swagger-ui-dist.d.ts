// swagger-ui-dist ships no types; this is the part of its bundle /docs uses.
declare module 'swagger-ui-dist/swagger-ui-es-bundle.js' {
  interface SwaggerUIOptions {
    url: string
    dom_id: string
    validatorUrl: string | null
    deepLinking?: boolean
    tryItOutEnabled?: boolean
    persistAuthorization?: boolean
    displayRequestDuration?: boolean
    docExpansion?: 'list' | 'full' | 'none'
    defaultModelsExpandDepth?: number
    queryConfigEnabled?: boolean
  }
  const SwaggerUI: (options: SwaggerUIOptions) => unknown
  export default SwaggerUI
}
