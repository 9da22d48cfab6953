/**
 * Pieces shared by the response schemas. Every schema with a `title` becomes a named entry of the
 * OpenAPI document's `components.schemas` (src/http/openapi/components.ts), so the title is its name.
 */
import { Type, type TSchema } from '@sinclair/typebox';

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC' });

/** A JSON value of any shape (an agent's result, a tool's input or output). */
export const AnyJson = Type.Unknown();

export const JsonObject = Type.Record(Type.String(), Type.Unknown());

export const Deleted = Type.Object({ id: Type.String(), deleted: Type.Literal(true) }, { title: 'Deleted' });
