/** Responses of the /v1/api-keys endpoints (spec §2.1, §4.6). */
import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp } from './common.js';

const KeyFields = {
  id: Type.String({ description: 'Prefix key_' }),
  name: Type.String(),
  permissions: Type.Array(Type.String()),
  createdAt: Timestamp,
  expiresAt: Type.Optional(Timestamp),
  isActive: Type.Boolean(),
  ipWhitelist: Type.Optional(Type.Array(Type.String())),
};

export const ApiKey = Type.Object({ ...KeyFields, lastUsedAt: Nullable(Timestamp) }, { title: 'ApiKey' });

/** The creation response: the only time the secret value is shown. */
export const IssuedApiKey = Type.Object(
  { ...KeyFields, key: Type.String({ description: 'The secret: mk_ and 32 hex characters. Shown only here' }) },
  { title: 'IssuedApiKey' },
);

export const ApiKeyList = Type.Object({ keys: Type.Array(ApiKey) }, { title: 'ApiKeyList' });

export const ApiKeyActivity = Type.Object(
  {
    keyId: Type.String(),
    lastUsedAt: Nullable(Timestamp),
    usageStats: Type.Object({ last24h: Type.Integer(), last7d: Type.Integer(), last30d: Type.Integer() }),
    recentRequests: Type.Array(
      Type.Object({
        timestamp: Timestamp,
        endpoint: Type.String(),
        method: Type.String(),
        statusCode: Type.Integer(),
        ipAddress: Type.String(),
      }),
    ),
  },
  { title: 'ApiKeyActivity' },
);
