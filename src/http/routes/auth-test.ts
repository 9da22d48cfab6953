/** GET /v1/auth/test: who am I (spec §4.7). Any valid key; no particular permission. */
import { asKey } from '../../services/auth/principal.js';
import { json, route } from '../route.js';
import { AuthTest } from '../../schemas/responses/service.js';

export function authTestRoutes() {
  return [
    route({
      method: 'get',
      path: '/v1/auth/test',
      access: { kind: 'key' },
      doc: { summary: 'Which key and account a request authenticates as', tag: 'auth', responses: { 200: AuthTest } },
      handle: (ctx) => {
        const principal = asKey(ctx.principal);
        return json(200, {
          authenticated: true,
          keyId: principal.key.id,
          keyName: principal.key.name,
          permissions: principal.key.permissions,
          userId: principal.account.id,
          accountTier: principal.account.tier,
        });
      },
    }),
  ];
}
