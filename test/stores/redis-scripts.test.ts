/**
 * The include step of the Redis scripts (src/adapters/stores/redis/scripts.ts): code shared by
 * two scripts is inlined where they say `--- @include "<name>"`. What the scripts do is tested
 * against a real Redis in concurrency-slots.test.ts.
 */
import { readdirSync } from 'node:fs';
import t from 'tap';
import { readScript } from '../../src/adapters/stores/redis/scripts.js';
import { asset } from '../../src/support/paths.js';

const scripts = readdirSync(asset('src/adapters/stores/redis/lua'))
  .filter((file) => file.endsWith('.lua'))
  .map((file) => file.slice(0, -'.lua'.length));

t.test('every script loads with its includes inlined and its KEYS/ARGV header first', async (t) => {
  t.ok(scripts.length >= 7, `${scripts.length} scripts`);
  for (const name of scripts) {
    const source = readScript(name);
    t.notMatch(source, /^--- @include/m, `${name}: no include directive left`);
    t.ok(source.startsWith('--[['), `${name}: opens with its header`);
    t.match(source, /Returns:/, `${name}: the header says what it returns`);
  }
});

t.test('both slot scripts that move holders share one reclaim-and-promote loop', async (t) => {
  for (const name of ['slot-acquire-3', 'slot-release-3']) {
    const source = readScript(name);
    t.equal(source.match(/local function reclaimAndPromote\(/g)?.length, 1, `${name}: the shared function, once`);
    t.equal(source.match(/while running < concurrent do/g)?.length, 1, `${name}: one loop, the shared one`);
    t.match(source, /= reclaimAndPromote\(KEYS\[1\], KEYS\[2\], concurrent, now, leaseEnd, /, `${name}: calls it`);
  }
});
