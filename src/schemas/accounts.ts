import { Type, type Static } from '@sinclair/typebox';
import { Name, Tier } from './common.js';

export const AccountLimitsBody = Type.Object(
  {
    requestsPerMinute: Type.Integer({ minimum: 1, maximum: 10_000_000 }),
    requestsPerDay: Type.Integer({ minimum: 1, maximum: 10_000_000_000 }),
    concurrentExecutions: Type.Integer({ minimum: 1, maximum: 100_000 }),
    queueSize: Type.Integer({ minimum: 0, maximum: 10_000_000 }),
  },
  { additionalProperties: false },
);

export const CreateAccountBody = Type.Object(
  {
    name: Name,
    tier: Tier,
    limits: Type.Optional(Type.Partial(AccountLimitsBody, { title: 'CreateAccountBody', additionalProperties: false })),
    feePercent: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
  },
  { additionalProperties: false },
);
export type CreateAccountBody = Static<typeof CreateAccountBody>;
