// GET /metrics, for operators: the answer and the OpenAPI operation.
import { operatorOperation } from './operations.js'

export const metrics = {
  ...operatorOperation(
    'metrics',
    'Prometheus metrics',
    'Prometheus text format. Off with METRICS_ENABLED=false; moved off this port by METRICS_PORT.',
  ),
  response: { 200: { description: 'The metrics.', content: { 'text/plain': { schema: { type: 'string' } } } } },
}
