// The API reference at /docs: Swagger UI, bundled (no CDN), reading the service's own
// /openapi.json, with "Try it out" sending requests to this same origin.
import 'swagger-ui-dist/swagger-ui.css'
import SwaggerUI from 'swagger-ui-dist/swagger-ui-es-bundle.js'
import './docs.css'

SwaggerUI({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  // The default sends the document to validator.swagger.io for a badge: nothing leaves this host.
  validatorUrl: null,
  // Configuration from the page's query string (?url=...) could point the page at another document.
  queryConfigEnabled: false,
  deepLinking: true,
  displayRequestDuration: true,
  defaultModelsExpandDepth: 0,
})
