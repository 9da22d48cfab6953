import { Type, type Static } from '@sinclair/typebox';
import { IsoDateTime, Name } from './common.js';

export const CreateApiKeyBody = Type.Object(
  {
    name: Name,
    permissions: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 32, uniqueItems: true }),
    expiresAt: Type.Optional(IsoDateTime),
    ipWhitelist: Type.Optional(Type.Array(Type.String({ minLength: 2, maxLength: 64 }), { minItems: 1, maxItems: 100 })),
    /** Operator token only: the account the key belongs to. */
    accountId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { title: 'CreateApiKeyBody', additionalProperties: false },
);
export type CreateApiKeyBody = Static<typeof CreateApiKeyBody>;

export const UpdateApiKeyBody = Type.Object({ isActive: Type.Boolean() }, { title: 'UpdateApiKeyBody', additionalProperties: false });
export type UpdateApiKeyBody = Static<typeof UpdateApiKeyBody>;
