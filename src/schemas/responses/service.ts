/** Responses of GET /health, GET /v1/auth/test and POST /v1/accounts. */
import { Type } from '@sinclair/typebox';
import { Tier } from '../common.js';
import { Nullable, Timestamp } from './common.js';

export const Health = Type.Object(
  {
    status: Type.Literal('healthy'),
    version: Type.String(),
    timestamp: Type.Integer({ description: 'Unix seconds' }),
  },
  { title: 'Health' },
);

export const AuthTest = Type.Object(
  {
    authenticated: Type.Literal(true),
    keyId: Type.String(),
    keyName: Type.String(),
    permissions: Type.Array(Type.String()),
    userId: Type.String({ description: 'The account id' }),
    accountTier: Tier,
  },
  { title: 'AuthTest' },
);

export const AccountLimits = Type.Object(
  {
    requestsPerMinute: Type.Integer(),
    requestsPerDay: Type.Integer(),
    concurrentExecutions: Type.Integer(),
    queueSize: Type.Integer(),
  },
  { title: 'AccountLimits' },
);

export const Account = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    tier: Tier,
    limits: AccountLimits,
    feePercent: Nullable(Type.Number({ description: 'Enterprise accounts only; null uses the tier fee' })),
    createdAt: Timestamp,
  },
  { title: 'Account' },
);
