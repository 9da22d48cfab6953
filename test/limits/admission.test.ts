/** Admission control's bounds: backlog and agent queue wait refuse with 503 OVERLOADED, and recover. */
import t from 'tap';
import { ApiError } from '../../src/domain/errors.js';
import { createAdmission } from '../../src/services/limits/admission.js';

function refusal(check: () => void): ApiError | null {
  try {
    check();
    return null;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

t.test('the backlog bound refuses the next execution until one finishes', async (t) => {
  const admission = createAdmission({ maxBacklog: 2, maxEventLoopDelayMs: 60_000, maxAgentQueueWaitMs: 60_000 });
  t.teardown(() => admission.stop());
  admission.started('a');
  t.equal(refusal(() => admission.check()), null);
  admission.started('b');
  admission.started('b');
  t.equal(admission.backlog, 2, 'a start counted once');
  const refused = refusal(() => admission.check());
  t.equal(refused?.status, 503);
  t.equal(refused?.code, 'OVERLOADED');
  t.equal(refused?.extra.reason, 'backlog');
  t.equal(refused?.headers['Retry-After'], '1');
  admission.finished('a');
  t.equal(refusal(() => admission.check()), null, 'room again');
});

t.test('a long wait for an agent slot refuses new executions for about a second', async (t) => {
  const admission = createAdmission({ maxBacklog: 100, maxEventLoopDelayMs: 60_000, maxAgentQueueWaitMs: 1_000 });
  t.teardown(() => admission.stop());
  admission.queueWaited(400);
  t.equal(refusal(() => admission.check()), null, 'under the bound');
  admission.queueWaited(2_500);
  const refused = refusal(() => admission.check());
  t.equal(refused?.extra.reason, 'agent_queue_wait');
  t.equal(refused?.headers['Retry-After'], '3', 'about as long as calls wait');
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  t.equal(refusal(() => admission.check()), null, 'forgotten after two quiet windows');
});

/** Keeps the event loop busy for `ms`, like a worker at capacity. */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

t.test('a saturated worker refuses once its backlog is longer than it can complete in maxBacklogMs', async (t) => {
  const admission = createAdmission({ maxBacklog: 100_000, maxBacklogMs: 1_000, maxEventLoopDelayMs: 60_000, maxAgentQueueWaitMs: 60_000 });
  t.teardown(() => admission.stop());
  for (let i = 0; i < 100; i++) admission.started(`e${i}`);
  t.equal(refusal(() => admission.check()), null, 'an idle loop accepts a long backlog (slow agents are not overload)');
  // A window with the loop fully busy and nothing completing.
  spin(600);
  await new Promise((resolve) => setTimeout(resolve, 20));
  const refused = refusal(() => admission.check());
  t.equal(refused?.code, 'OVERLOADED');
  t.equal(refused?.extra.reason, 'saturated');
  t.match(String(refused?.extra.details), /event loop busy \d+%/);
  // Once the loop has room again, submissions are accepted.
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  t.equal(refusal(() => admission.check()), null, 'accepted again when no longer saturated');
});

t.test('a saturated worker still accepts a small backlog', async (t) => {
  const admission = createAdmission({ maxBacklog: 100_000, maxBacklogMs: 1_000, maxEventLoopDelayMs: 60_000, maxAgentQueueWaitMs: 60_000 });
  t.teardown(() => admission.stop());
  for (let i = 0; i < 50; i++) admission.started(`e${i}`);
  spin(600);
  await new Promise((resolve) => setTimeout(resolve, 20));
  t.equal(refusal(() => admission.check()), null);
});
