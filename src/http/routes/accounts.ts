/** POST /v1/accounts: operator token only (DESIGN §6). */
import { accountView, createAccount } from '../../services/accounts.js';
import { json, route } from '../route.js';
import { CreateAccountBody } from '../../schemas/accounts.js';
import type { Services } from '../../services/index.js';
import { compile } from '../../schemas/validation.js';
import { Account } from '../../schemas/responses/service.js';

const createAccountBody = compile(CreateAccountBody);

export function accountRoutes(services: Services) {
  return [
    route({
      method: 'post',
      path: '/v1/accounts',
      access: { kind: 'operator' },
      body: createAccountBody,
      doc: { summary: 'Create an account', responses: { 201: Account } },
      handle: async ({ body }) => json(201, accountView(await createAccount(services.stores.accounts, body))),
    }),
  ];
}
