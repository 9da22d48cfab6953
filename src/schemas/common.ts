/** Schema pieces shared by several resources. */
import { Type } from '@sinclair/typebox';

export const Tier = Type.Union([Type.Literal('DEVELOPER'), Type.Literal('BUSINESS'), Type.Literal('ENTERPRISE')]);

/** A display name: printable, trimmed by the client, bounded. */
export const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\u0000-\\u001f]+$' });

export const IsoDateTime = Type.String({ format: 'date-time', maxLength: 64 });
