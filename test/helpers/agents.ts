/**
 * Starts mock agents and registers them through POST /v1/agents with `key` (private to that
 * key's account); the fleet closes at teardown.
 */
import { startMockAgentFleet, type MockAgent, type MockAgentConfig } from '../fixtures/mock-agent-fleet.js';
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
