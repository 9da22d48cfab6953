/** The client's generated types match the current OpenAPI document (run `npm run client:generate`). */
import { readFileSync } from 'node:fs';
import t from 'tap';
import { clientSchemaSource, SCHEMA_FILE } from '../../scripts/generate-client.js';

t.test('src/client/schema.ts is what `npm run client:generate` writes now', async (t) => {
  const current = readFileSync(SCHEMA_FILE, 'utf8');
  t.ok(current === (await clientSchemaSource()), 'src/client/schema.ts is out of date: run `npm run client:generate`');
});
