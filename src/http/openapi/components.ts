/**
 * Turns TypeBox schemas into OpenAPI 3.1 schemas (plain JSON Schema 2020-12): TypeBox's symbol
 * keys are dropped, and every subschema with a `title` is moved to `components.schemas` under
 * that title and replaced by a `$ref`, so generated clients get one named type per title.
 */
import type { TSchema } from '@sinclair/typebox';

export type JsonSchema = Record<string, unknown>;

export class SchemaRegistry {
  readonly schemas: Record<string, JsonSchema> = {};
  readonly #serialized = new Map<string, string>();

  /** The schema as the document shows it: a `$ref` when titled, inline otherwise. */
  use(schema: TSchema | JsonSchema): JsonSchema {
    return this.#visit(JSON.parse(JSON.stringify(schema)) as unknown) as JsonSchema;
  }

  ref(name: string): JsonSchema {
    return { $ref: `#/components/schemas/${name}` };
  }

  #visit(node: unknown): unknown {
    if (Array.isArray(node)) return node.map((item) => this.#visit(item));
    if (node === null || typeof node !== 'object') return node;
    const out: JsonSchema = {};
    for (const [key, value] of Object.entries(node)) out[key] = this.#visit(value);
    const title = out.title;
    if (typeof title !== 'string') return out;
    const text = JSON.stringify(out);
    const seen = this.#serialized.get(title);
    // Two different schemas under one title would silently merge into one client type.
    if (seen !== undefined && seen !== text) throw new Error(`two different schemas are titled '${title}'`);
    this.#serialized.set(title, text);
    this.schemas[title] = out;
    return this.ref(title);
  }
}
