/**
 * GET /health: liveness, no auth (spec §4.8). `X-Baton-Worker` names the worker slot that
 * answered, for operators checking that load spreads over the workers.
 */
import { json, route } from '../route.js';
import type { Services } from '../../services/index.js';
import { Health } from '../../schemas/responses/service.js';

export function healthRoutes(services: Services) {
  return [
    route({
      method: 'get',
      path: '/health',
      access: { kind: 'public' },
      doc: { summary: 'Liveness', responses: { 200: Health } },
      handle: () =>
        json(200, { status: 'healthy', version: services.version, timestamp: Math.floor(Date.now() / 1000) }, { 'X-Baton-Worker': String(services.config.workerIndex) }),
    }),
  ];
}
