import t from 'tap';
import { ApiError } from '../../src/domain/errors.js';
import { assertStorableBody, assertStorableParam, assertStorableQuery, unstorableReason } from '../../src/http/storable-text.js';

function fieldOf(fn: () => void): { field: unknown; message: string } | null {
  try {
    fn();
    return null;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { field: (error.extra as { field?: unknown }).field, message: error.message };
  }
}

t.test('NUL and lone surrogates are unstorable; pairs, emoji and other controls are fine', async (t) => {
  t.match(unstorableReason('a\u0000b'), /NUL/);
  t.match(unstorableReason('\ud800'), /lone surrogate/);
  t.match(unstorableReason('x\udc00'), /lone surrogate/);
  t.match(unstorableReason('\ud83d'), /lone surrogate/, 'a high half at the end');
  t.equal(unstorableReason('😀 café \u0001 \t'), null);
  t.equal(unstorableReason(''), null);
});

t.test('a body is walked to the first bad string, named by its dotted path', async (t) => {
  t.same(fieldOf(() => assertStorableBody({ query: 'ok', context: { notes: ['fine', 'bad\u0000'] } })), {
    field: 'context.notes.1',
    message: "'context.notes.1' contains a NUL character (U+0000)",
  });
  t.match(fieldOf(() => assertStorableBody({ name: '\ud800' })), { field: 'name' });
  t.match(fieldOf(() => assertStorableBody('\u0000')), { field: '', message: /request body/ });
  t.match(fieldOf(() => assertStorableBody({ context: { 'k\u0000': 1 } })), { field: 'context', message: /field name in 'context'/ });
  t.equal(fieldOf(() => assertStorableBody({ a: [1, null, true, { b: 'ok 😀' }] })), null);
  t.equal(fieldOf(() => assertStorableBody(undefined)), null);
});

t.test('deep nesting does not overflow the stack', async (t) => {
  let deep: unknown = 'bad\u0000';
  for (let i = 0; i < 100_000; i++) deep = [deep];
  t.match(fieldOf(() => assertStorableBody(deep)), { message: /NUL/ });
});

t.test('path and query parameters name themselves; a bad query name is not echoed', async (t) => {
  t.match(fieldOf(() => assertStorableParam('id', 'exec_\u0000')), { field: 'id', message: "Path parameter 'id' contains a NUL character (U+0000)" });
  t.match(fieldOf(() => assertStorableQuery('vertical', 'x\u0000')), { field: 'vertical' });
  t.match(fieldOf(() => assertStorableQuery('v\u0000', 'x')), { field: 'query', message: /query parameter name/ });
  t.equal(fieldOf(() => assertStorableQuery('vertical', 'finance')), null);
});
