/** The HTTP adapter of the agent port (src/ports/agent-client.ts): the client and its limits. */
export { createAgentClient, DEFAULT_MAX_BYTES, DEFAULT_PROBE_TIMEOUT_MS } from './client.js';
export type { AgentClientOptions } from './client.js';
