import { createServer, connect, type AddressInfo } from 'node:net';
import t from 'tap';
import { boundPort, StoreDeadlineExceeded, withDeadline } from '../../src/ports/deadline.js';
import { isStoreUnavailable } from '../../src/http/unavailable.js';

const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

/** Blocks the event loop, as a busy worker does. */
function busyFor(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // spin
  }
}

t.test('a call that answers in time settles as it did', async (t) => {
  t.equal(await withDeadline(Promise.resolve(42), 50, 'x.ok'), 42);
  await t.rejects(withDeadline(Promise.reject(new Error('boom')), 50, 'x.fail'), { message: 'boom' });
});

t.test('a call that never answers rejects soon after the deadline, as store-unavailable', async (t) => {
  const started = Date.now();
  const error = await withDeadline(never(), 50, 'apiKeys.findByHash').catch((e: unknown) => e);
  const took = Date.now() - started;
  t.type(error, StoreDeadlineExceeded);
  t.match(error, { code: 'STORE_DEADLINE_EXCEEDED', operation: 'apiKeys.findByHash', deadlineMs: 50 });
  t.ok(isStoreUnavailable(error), 'the pipeline answers it 503 with Retry-After');
  t.ok(took >= 45 && took < 1_000, `rejected after ${took} ms`);
});

t.test('an answer settled in the grace turn after the timer fired wins', async (t) => {
  // The answer arrives in the same loop turn as the deadline timer (its timer is due first and
  // resolves through setImmediate, as an I/O callback would): one turn of grace lets it through.
  const late = new Promise<string>((resolve) => setTimeout(() => setImmediate(() => resolve('answer')), 50));
  t.equal(await withDeadline(late, 50, 'x.grace'), 'answer');
});

t.test('a busy event loop is not blamed on the store', async (t) => {
  // A loopback peer answers 10 ms in, while this loop is blocked past the 30 ms deadline. When
  // the loop comes back the deadline timer fires in the same turn as the answer is readable; the
  // grace turn lets the reply be read before the call is declared late.
  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    setTimeout(() => socket.write('pong'), 10);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  socket.on('error', () => undefined);
  t.teardown(() => {
    socket.destroy();
    server.close();
  });
  await new Promise((resolve) => socket.once('connect', resolve));
  const reply = new Promise<string>((resolve) => socket.once('data', (data) => resolve(data.toString())));
  // Let the server accept and arm its timer before the loop is blocked.
  await new Promise((resolve) => setImmediate(resolve));
  const bounded = withDeadline(reply, 30, 'x.busy');
  busyFor(150);
  t.equal(await bounded, 'pong');
});

t.test('a late failure after the deadline is not an unhandled rejection', async (t) => {
  let fail: (error: Error) => void = () => undefined;
  const work = new Promise<never>((_resolve, reject) => (fail = reject));
  await t.rejects(withDeadline(work, 20, 'x.late'), StoreDeadlineExceeded);
  fail(new Error('too late'));
  await new Promise((resolve) => setImmediate(resolve));
  t.pass('no unhandled rejection');
});

t.test('boundPort bounds only the listed methods, and keeps the port as `this`', async (t) => {
  class Port {
    #calls = 0;
    slow(): Promise<number> {
      this.#calls += 1;
      return never();
    }
    unbounded(): Promise<number> {
      this.#calls += 1;
      return new Promise((resolve) => setTimeout(() => resolve(this.#calls), 80));
    }
    sync(): number {
      return this.#calls;
    }
    readonly label = 'port';
  }
  const port = new Port();
  const bounded = boundPort(port, 'port', ['slow'], 30);
  await t.rejects(bounded.slow(), { code: 'STORE_DEADLINE_EXCEEDED', operation: 'port.slow' });
  t.equal(await bounded.unbounded(), 2, 'an unlisted method is not cut short');
  t.equal(bounded.sync(), 2);
  t.equal(bounded.label, 'port');
  t.equal(bounded.slow, bounded.slow, 'wrappers are made once per method');
});
