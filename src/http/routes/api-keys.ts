/**
 * API keys (spec §4.6, DESIGN §6). A key manages the keys of its own account and can only grant
 * permissions it holds; the operator token may create a key in any account (how an account's
 * first key is made).
 */
import { Permission } from '../../services/auth/permissions.js';
import { asKey } from '../../services/auth/principal.js';
import { accountIdOf } from '../caller.js';
import { activityView, issuedKeyView, issueKey, keyView } from '../../services/api-keys.js';
import { accountNotFound, forbidden, invalidRequest, keyNotFound } from '../../domain/errors.js';
import { json, route } from '../route.js';
import { CreateApiKeyBody, UpdateApiKeyBody } from '../../schemas/api-keys.js';
import type { Services } from '../../services/index.js';
import type { Account } from '../../domain/accounts.js';
import { compile } from '../../schemas/validation.js';
import { ApiKey, ApiKeyActivity, ApiKeyList, IssuedApiKey } from '../../schemas/responses/api-keys.js';
import { Deleted } from '../../schemas/responses/common.js';

const createBody = compile(CreateApiKeyBody);
const updateBody = compile(UpdateApiKeyBody);
const RECENT_REQUESTS = 50;
const manage = { kind: 'permission', permission: Permission.API_KEYS_MANAGE } as const;

export function apiKeyRoutes(services: Services) {
  const { accounts, apiKeys, usage } = services.stores;

  return [
    route({
      method: 'post',
      path: '/v1/api-keys',
      access: { ...manage, operator: true },
      body: createBody,
      doc: { summary: 'Create an API key (its value is shown only in this response)', responses: { 201: IssuedApiKey }, errors: ['ACCOUNT_NOT_FOUND'] },
      handle: async ({ body, principal }) => {
        let account: Account;
        let issuerPermissions: readonly string[] | null;
        if (principal.kind === 'operator') {
          if (body.accountId === undefined) {
            throw invalidRequest('accountId', 'The operator token must name the accountId the key belongs to');
          }
          const found = await accounts.get(body.accountId);
          if (found === null) throw accountNotFound(body.accountId);
          account = found;
          issuerPermissions = null;
        } else {
          const caller = asKey(principal);
          if (body.accountId !== undefined && body.accountId !== caller.account.id) {
            throw forbidden(Permission.API_KEYS_MANAGE, 'A key can only create keys in its own account');
          }
          account = caller.account;
          issuerPermissions = caller.key.permissions;
        }
        const issued = await issueKey(apiKeys, services.hashKey, account, body, issuerPermissions);
        return json(201, issuedKeyView(issued));
      },
    }),
    route({
      method: 'get',
      path: '/v1/api-keys',
      access: manage,
      doc: { summary: "List the account's keys", responses: { 200: ApiKeyList } },
      handle: async (ctx) => {
        const keys = await apiKeys.listByAccount(accountIdOf(ctx.principal));
        return json(200, { keys: keys.map(keyView) });
      },
    }),
    route({
      method: 'patch',
      path: '/v1/api-keys/:id',
      access: manage,
      body: updateBody,
      doc: { summary: 'Deactivate or reactivate a key', responses: { 200: ApiKey }, errors: ['KEY_NOT_FOUND'] },
      handle: async (ctx) => {
        const accountId = accountIdOf(ctx.principal);
        const updated = await apiKeys.setActive(accountId, ctx.params.id!, ctx.body.isActive);
        if (updated === null) throw keyNotFound(ctx.params.id!);
        // Reactivation evicts too: caches may hold the deactivated row.
        await services.revocations.revoke(updated.keyHash);
        return json(200, keyView(updated));
      },
    }),
    route({
      method: 'del',
      path: '/v1/api-keys/:id',
      access: manage,
      doc: { summary: 'Delete a key (permanent, immediate)', responses: { 200: Deleted }, errors: ['KEY_NOT_FOUND'] },
      handle: async (ctx) => {
        const accountId = accountIdOf(ctx.principal);
        const removed = await apiKeys.delete(accountId, ctx.params.id!);
        if (removed === null) throw keyNotFound(ctx.params.id!);
        await services.revocations.revoke(removed.keyHash);
        return json(200, { id: removed.id, deleted: true });
      },
    }),
    route({
      method: 'get',
      path: '/v1/api-keys/:id/activity',
      access: manage,
      doc: { summary: "A key's usage counts and recent requests", responses: { 200: ApiKeyActivity }, errors: ['KEY_NOT_FOUND'] },
      handle: async (ctx) => {
        const key = await apiKeys.get(accountIdOf(ctx.principal), ctx.params.id!);
        if (key === null) throw keyNotFound(ctx.params.id!);
        return json(200, activityView(await usage.activity(key.id, new Date(), RECENT_REQUESTS)));
      },
    }),
  ];
}
