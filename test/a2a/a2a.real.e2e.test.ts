/**
 * A2A across two workers on the real Postgres and Redis (skipped without DATABASE_URL and
 * REDIS_URL): tasks started, answered, streamed and resubscribed through whichever worker takes
 * each connection; the run's owner applies the decision and every worker follows its log.
 */
import { TaskState } from '@a2a-js/sdk';
import t from 'tap';
import { realServersAvailable, startServer } from '../helpers/server.js';
import { setupWorkflow, startToolServer } from '../workflows/fixtures.js';
import { answerOf, asTask, collect, connect, message, send, states } from './client.js';

if (!realServersAvailable()) {
  t.pass('skipped: needs DATABASE_URL and REDIS_URL');
} else {
  const server = await startServer(t, { mode: 'real', workers: 2 });
  const tools = await startToolServer();
  t.teardown(() => tools.close());

  t.test('pauses answered and followed through any worker', async (t) => {
    const setup = await setupWorkflow(server, tools, t.teardown.bind(t), { risk: 'high' });
    const client = await connect(server.url, setup.key, true);
    // Several tasks, each request on a fresh connection: some answers and streams land on the worker that does not own the run.
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const paused = asTask(await send(client, message(`weather ${i}`)));
      t.equal(paused.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
      ids.push(paused.id);
    }
    for (const id of ids) {
      const streamed = await collect(client.sendMessageStream({ tenant: '', message: message('approve', { taskId: id }), configuration: undefined, metadata: undefined }));
      t.equal(states(streamed).at(-1), TaskState.TASK_STATE_COMPLETED, `${id} completed`);
      const replayed = states(await collect(client.resubscribeTask({ tenant: '', id })));
      t.ok(replayed.includes(TaskState.TASK_STATE_INPUT_REQUIRED) && replayed.at(-1) === TaskState.TASK_STATE_COMPLETED, `${id} replayed`);
      t.match(answerOf(await client.getTask({ tenant: '', id })), /^answer: /);
    }
  });
}
