/** The one definition of the statuses executions and workflow runs end in (src/domain). */
import { readFileSync } from 'node:fs';
import t from 'tap';
import { isTerminalExecution, TERMINAL_EXECUTION_STATUSES } from '../../src/domain/executions.js';
import { isTerminalRun, TERMINAL_RUN_STATUSES } from '../../src/domain/workflows.js';
import { asset } from '../../src/support/paths.js';

t.test('an execution is over once COMPLETED, FAILED or CANCELLED, and not before', async (t) => {
  t.same(['PENDING', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED'].filter(isTerminalExecution), ['COMPLETED', 'FAILED', 'CANCELLED']);
  t.same(TERMINAL_EXECUTION_STATUSES, ['COMPLETED', 'FAILED', 'CANCELLED']);
});

t.test('a workflow run is over once completed, failed or cancelled; queued and running are not', async (t) => {
  t.same(['running', 'queued', 'completed', 'failed', 'cancelled'].filter(isTerminalRun), ['completed', 'failed', 'cancelled']);
  t.same(TERMINAL_RUN_STATUSES, ['completed', 'failed', 'cancelled']);
});

t.test("the typed client's own copy (it imports nothing of the server) matches the domain", async (t) => {
  const source = readFileSync(asset('src/client/wait.ts'), 'utf8');
  const copy = /const TERMINAL: ReadonlySet<string> = new Set\(\[([^\]]*)\]\)/.exec(source)?.[1];
  t.ok(copy !== undefined, 'the client keeps its copy in wait.ts');
  t.same(copy!.split(',').map((s) => s.trim().replace(/'/g, '')), [...TERMINAL_EXECUTION_STATUSES]);
});
