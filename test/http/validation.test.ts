import fc from 'fast-check';
import t from 'tap';
import { ApiError } from '../../src/domain/errors.js';
import { isJsonContentType, parseJsonBody } from '../../src/http/body.js';
import { CreateApiKeyBody } from '../../src/schemas/api-keys.js';
import { compile, exceedsDepth } from '../../src/schemas/validation.js';

const createKey = compile(CreateApiKeyBody);

function errorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

t.test('a missing field is named by its path', async (t) => {
  const error = errorOf(() => createKey.parse({ name: 'x' }));
  t.equal(error.status, 400);
  t.equal(error.extra.field, 'permissions');
});

t.test('a nested violation is named by its dotted path', async (t) => {
  const error = errorOf(() => createKey.parse({ name: 'x', permissions: ['ok', 7] }));
  t.equal(error.extra.field, 'permissions.1');
});

t.test('unknown fields are refused by name', async (t) => {
  t.equal(errorOf(() => createKey.parse({ name: 'x', permissions: ['*'], admin: true })).extra.field, 'admin');
});

t.test('validation of arbitrary values either returns the value or throws INVALID_REQUEST', async () => {
  fc.assert(
    fc.property(fc.anything(), (value) => {
      try {
        createKey.parse(value);
        return true;
      } catch (error) {
        return error instanceof ApiError && error.code === 'INVALID_REQUEST' && typeof error.extra.field === 'string';
      }
    }),
    { numRuns: 500 },
  );
});

t.test('depth counts the top object as level 1', async (t) => {
  t.notOk(exceedsDepth({ a: 1 }, 1));
  t.ok(exceedsDepth({ a: { b: 1 } }, 1));
  let nested: Record<string, unknown> = {};
  const top = nested;
  for (let i = 1; i < 10; i++) {
    const next = {};
    nested.child = next;
    nested = next;
  }
  t.notOk(exceedsDepth(top, 10), 'ten levels are allowed');
  nested.child = {};
  t.ok(exceedsDepth(top, 10), 'eleven are not');
  t.notOk(exceedsDepth('scalar', 1));
});

t.test('depth checking of absurd nesting does not overflow the stack', async (t) => {
  const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)) as unknown;
  t.ok(exceedsDepth(deep, 10));
});

t.test('JSON bodies must be valid UTF-8 and valid JSON', async (t) => {
  t.same(parseJsonBody(Buffer.from('{"a":1}')), { a: 1 });
  t.equal(parseJsonBody(Buffer.alloc(0)), undefined);
  t.match(errorOf(() => parseJsonBody(Buffer.from([0x7b, 0xff, 0x7d]))).message, /UTF-8/);
  t.match(errorOf(() => parseJsonBody(Buffer.from('{a:1}'))).message, /not valid JSON/);
});

t.test('the parser never throws anything but INVALID_REQUEST on random bytes', async () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
      try {
        parseJsonBody(Buffer.from(bytes));
        return true;
      } catch (error) {
        return error instanceof ApiError && error.code === 'INVALID_REQUEST';
      }
    }),
    { numRuns: 1000 },
  );
});

t.test('JSON content types are recognised with parameters and +json suffixes', async (t) => {
  t.ok(isJsonContentType('application/json'));
  t.ok(isJsonContentType('Application/JSON; charset=utf-8'));
  t.ok(isJsonContentType('application/merge-patch+json'));
  t.notOk(isJsonContentType('text/plain'));
  t.notOk(isJsonContentType('application/x-www-form-urlencoded'));
});
