/** Reading an agent's example requests from its /info payload. */
import t from 'tap';
import { MAX_EXAMPLE_LENGTH, MAX_EXAMPLES, examplesFromInfo } from '../../src/domain/agent-examples.js';

t.test('an examples array and A2A-style skills are read, in that order, without duplicates', async (t) => {
  const info = {
    examples: ['Track my parcel', ' Where is order 42? '],
    skills: [{ name: 'track', description: 'tracking', examples: ['Track my parcel', 'Is my DHL box late?'] }, { name: 'none' }],
  };
  t.same(examplesFromInfo(info), ['Track my parcel', 'Where is order 42?', 'Is my DHL box late?']);
});

t.test('what breaks the limits is skipped, not fatal: the agent payload is not ours to reject', async (t) => {
  t.same(examplesFromInfo({ examples: [1, null, '', '   ', 'x'.repeat(MAX_EXAMPLE_LENGTH + 1), 'ok'] }), ['ok']);
  t.same(examplesFromInfo({ examples: 'not a list', skills: 'nor this' }), []);
  t.same(examplesFromInfo(null), []);
  t.same(examplesFromInfo({ skills: [null, 3, { examples: ['fine'] }] }), ['fine']);
  const many = Array.from({ length: 50 }, (_, i) => `example ${i}`);
  t.same(examplesFromInfo({ examples: many }), many.slice(0, MAX_EXAMPLES));
});
