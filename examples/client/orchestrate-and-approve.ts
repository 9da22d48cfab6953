/**
 * The typed client end to end: run an orchestration and wait for it, then run a workflow, follow
 * its events and approve its high-risk tool call. Needs a running Baton, an API key with `*`, a
 * registered agent and a workflow whose step has a high-risk tool (README, "Typed client").
 *
 *   BATON_URL=http://localhost:8080 BATON_KEY=mk_… BATON_WORKFLOW=my-flow npx tsx examples/client/orchestrate-and-approve.ts
 */
import { createBatonClient } from '../../src/client/index.js';

const baton = createBatonClient({ baseUrl: process.env.BATON_URL ?? 'http://localhost:8080', apiKey: process.env.BATON_KEY ?? '' });

const created = await baton.orchestrate({ query: 'Summarise the attached contract' });
console.log(`execution ${created.executionId}: ${created.message}`);
const execution = await baton.waitForExecution(created.executionId);
console.log(execution.status, execution.result?.summary ?? execution.error?.message, execution.metadata);

const slug = process.env.BATON_WORKFLOW;
if (slug !== undefined) {
  const run = await baton.runWorkflow(slug, { task: 'What is the weather in Lisbon?' });
  for await (const event of baton.workflowEvents(run.execution_id)) {
    switch (event.event) {
      case 'chunk':
        process.stdout.write(event.data.content);
        break;
      case 'approval_request':
        console.log(`\n${event.data.tool_name} wants to run with`, event.data.tool_input);
        await baton.approve(run.execution_id, event.data.approval_id, 'looks fine');
        break;
      case 'done':
        console.log(`\nrun ${event.data.status}`);
        break;
    }
  }
}
