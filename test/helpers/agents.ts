/**
 * Mock agents for tests: registered through POST /v1/agents with `key` (private to that key's
 * account), or one agent with a client to call it directly. Everything closes at teardown.
 */
import { createAgentClient, type AgentClient } from '../../src/adapters/agent-http/client.js';
import { startMockAgent, startMockAgentFleet, type MockAgent, type MockAgentConfig } from '../fixtures/mock-agent-fleet.js';
import { api } from './server.js';

export async function registerAgents(server: { url: string }, key: string, configs: MockAgentConfig[], teardown: (fn: () => unknown) => void): Promise<MockAgent[]> {
  const fleet = await startMockAgentFleet(configs);
  teardown(() => fleet.close());
  for (const agent of fleet.agents) {
    const res = await api(server, 'POST', '/v1/agents', {
      key,
      body: {
        id: agent.info.id,
        name: agent.info.name,
        description: agent.info.description,
        url: agent.url,
        vertical: 'testing',
        capabilities: agent.info.capabilities,
        pricing: agent.info.pricing,
      },
    });
    if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${res.text}`);
  }
  return [...fleet.agents];
}

/** One mock agent and one agent client for a test, both closed at teardown. */
export async function mockAgentWithClient(t: { teardown(fn: () => unknown): void }, config: MockAgentConfig = {}): Promise<{ agent: MockAgent; client: AgentClient }> {
  const agent = await startMockAgent(config);
  const client = createAgentClient({ allowPrivate: true });
  t.teardown(async () => {
    await client.close();
    await agent.close();
  });
  return { agent, client };
}
