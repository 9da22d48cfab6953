/** Workflow run states and log events as A2A task states and updates. */
import { TaskState } from '@a2a-js/sdk';
import t from 'tap';
import { EventTranslator, stateOf, stateOfUpdate, taskOf, type RunView } from '../../src/http/a2a/translate.js';

const base: RunView = {
  execution_id: 'exec_1',
  status: 'running',
  workflow_slug: 'flow',
  conversation_id: 'ctx-1',
  final_answer: null,
  error: null,
  waiting_for_approval: null,
  completed_at: null,
  created_at: '2026-01-01T00:00:00Z',
};

t.test('run states map onto task states', async (t) => {
  t.equal(stateOf({ ...base, status: 'queued' }), TaskState.TASK_STATE_SUBMITTED);
  t.equal(stateOf(base), TaskState.TASK_STATE_WORKING);
  t.equal(stateOf({ ...base, waiting_for_approval: 'apr_1' }), TaskState.TASK_STATE_INPUT_REQUIRED);
  t.equal(stateOf({ ...base, status: 'completed' }), TaskState.TASK_STATE_COMPLETED);
  t.equal(stateOf({ ...base, status: 'failed' }), TaskState.TASK_STATE_FAILED);
  t.equal(stateOf({ ...base, status: 'cancelled' }), TaskState.TASK_STATE_CANCELED);
});

t.test('a task carries the answer artifact, the approval asked, or the error', async (t) => {
  const done = taskOf({ ...base, status: 'completed', final_answer: 'forty-two' }, null);
  t.equal(done.contextId, 'ctx-1');
  t.same(done.artifacts[0]?.parts[0]?.content, { $case: 'text', value: 'forty-two' });

  const paused = taskOf({ ...base, waiting_for_approval: 'apr_1' }, { approval_id: 'apr_1', tool_name: 'refund', tool_input: { amount: 5 } });
  const data = paused.status?.message?.parts.find((p) => p.content?.$case === 'data')?.content;
  t.match(data, { $case: 'data', value: { approval_id: 'apr_1', tool_name: 'refund', tool_input: { amount: 5 } } });

  const failed = taskOf({ ...base, status: 'failed', error: { code: 'AGENT_FAILED', message: 'the agent broke' } }, null);
  t.same(failed.status?.message?.parts[0]?.content, { $case: 'text', value: 'the agent broke' });
  t.equal(taskOf({ ...base, conversation_id: null }, null).contextId, 'exec_1', 'without a conversation the context is the task');
});

t.test('log events become updates tagged with their sequence number', async (t) => {
  const translator = new EventTranslator('exec_1', 'ctx-1');
  const log = [
    { id: 1, event: 'chunk', data: JSON.stringify({ content: 'Hel', step_id: 'main' }) },
    { id: 2, event: 'chunk', data: JSON.stringify({ content: 'lo', step_id: 'main' }) },
    { id: 3, event: 'approval_request', data: JSON.stringify({ approval_id: 'apr_1', tool_name: 'refund', tool_input: {} }) },
    { id: 4, event: 'approval_resolved', data: JSON.stringify({ approval_id: 'apr_1', decision: 'approved' }) },
    { id: 5, event: 'done', data: JSON.stringify({ execution_id: 'exec_1', status: 'completed', final_answer: 'Hello' }) },
  ];
  const updates = log.flatMap((event) => translator.translate(event));
  t.same(updates.map((u) => u.payload?.$case), ['artifactUpdate', 'artifactUpdate', 'statusUpdate', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
  const artifacts = updates.flatMap((u) => (u.payload?.$case === 'artifactUpdate' ? [u.payload.value] : []));
  t.same(artifacts.map((a) => [a.append, a.lastChunk]), [[false, false], [true, false], [false, true]], 'chunks append; the whole answer closes it');
  t.same(updates.map(stateOfUpdate).filter((s) => s !== null), [TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_COMPLETED]);
  t.same(updates.map((u) => (u.payload?.value as { metadata?: { eventId?: number } }).metadata?.eventId), [1, 2, 3, 4, 5, 5]);

  const failing = new EventTranslator('exec_2', 'exec_2');
  t.same(failing.translate({ id: 1, event: 'error', data: JSON.stringify({ code: 'X', message: 'boom' }) }), []);
  const [end] = failing.translate({ id: 2, event: 'done', data: JSON.stringify({ status: 'failed', final_answer: null }) });
  t.equal(stateOfUpdate(end!), TaskState.TASK_STATE_FAILED);
  t.match(JSON.stringify(end), /boom/, 'the failure says why');
  t.same(failing.translate({ event: 'done', data: 'not json' }), [], 'an unreadable event is skipped');
});
