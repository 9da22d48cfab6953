/**
 * Following a run's log as an async iterator: events in order, the end after the feed ends,
 * and a consumer that leaves (abort, or stopping early) stops the feed.
 */
import t from 'tap';
import { followRun } from '../../src/http/a2a/follow.js';
import type { SseSink } from '../../src/ports/event-sink.js';
import type { WorkflowsService } from '../../src/services/workflows/service.js';

/** A service whose openStream hands the sink to the test, which plays the feed. */
function feedBy(play: (sink: SseSink) => void, seen: { after?: string } = {}): WorkflowsService {
  return {
    openStream: async (_account: string, _id: string, after: string) => {
      seen.after = after;
      return play;
    },
  } as unknown as WorkflowsService;
}

t.test('events arrive in order and the iterator ends with the feed', async (t) => {
  const seen: { after?: string } = {};
  const service = feedBy((sink) => {
    sink.send({ id: 1, event: 'chunk', data: '{}' });
    setTimeout(() => {
      sink.send({ id: 2, event: 'done', data: '{}' });
      sink.end();
    }, 10);
  }, seen);
  const events = [];
  for await (const event of followRun(service, 'acct', 'exec_1', 0, new AbortController().signal)) events.push(event.id);
  t.same(events, [1, 2]);
  t.equal(seen.after, '0', 'from the start of the log');
});

t.test('aborting stops following and closes the sink', async (t) => {
  let sink: SseSink | null = null;
  let closed = false;
  const service = feedBy((s) => {
    sink = s;
    s.onClose(() => (closed = true));
    s.send({ id: 1, event: 'chunk', data: '{}' });
  });
  const abort = new AbortController();
  const events = [];
  for await (const event of followRun(service, 'acct', 'exec_1', 0, abort.signal)) {
    events.push(event.id);
    abort.abort();
  }
  t.same(events, [1]);
  t.ok(closed, 'the feed is told to stop');
  t.equal(sink!.send({ event: 'chunk', data: '{}' }), false, 'nothing more is accepted');
});

t.test('a consumer that stops early closes the sink too', async (t) => {
  let closed = false;
  const service = feedBy((s) => {
    s.onClose(() => (closed = true));
    s.send({ id: 1, event: 'chunk', data: '{}' });
    s.send({ id: 2, event: 'chunk', data: '{}' });
  });
  for await (const event of followRun(service, 'acct', 'exec_1', 0, new AbortController().signal)) {
    if (event.id === 1) break;
  }
  t.ok(closed);
});
