/** GET /health: liveness, no auth (spec §4.8). */
import { json, route } from '../http/route.js';
import type { Services } from '../services.js';

export function healthRoutes(services: Services) {
  return [
    route({
      method: 'get',
      path: '/health',
      access: { kind: 'public' },
      handle: () => json(200, { status: 'healthy', version: services.version, timestamp: Math.floor(Date.now() / 1000) }),
    }),
  ];
}
