import t from 'tap';
import { decodeEnvelope, encodeEnvelope, NONCE_LENGTH } from '../../src/adapters/stores/redis/envelope.js';
import { keys } from '../../src/adapters/stores/redis/keys.js';

t.test('every key and channel starts with the prefix', async (t) => {
  const k = keys('baton:');
  t.equal(k.channel('auth'), 'baton:ch:auth');
  t.equal(k.ack('n1'), 'baton:ack:n1');
  t.ok(k.channelPattern.startsWith('baton:'));
  t.not(k.channel('x'), keys('other:').channel('x'));
});

t.test('an envelope carries the message unchanged, with or without a nonce', async (t) => {
  const nonce = 'a'.repeat(NONCE_LENGTH);
  for (const message of ['', 'plain', '0starts-with-zero', '1starts-with-one', '{"json":true}']) {
    t.same(decodeEnvelope(encodeEnvelope(null, message)), { nonce: null, message });
    t.same(decodeEnvelope(encodeEnvelope(nonce, message)), { nonce, message });
  }
});

t.test('a message from a foreign publisher is passed through whole', async (t) => {
  t.same(decodeEnvelope('hello'), { nonce: null, message: 'hello' });
  t.same(decodeEnvelope('1short'), { nonce: null, message: '1short' });
});
