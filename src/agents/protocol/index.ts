/** The agent protocol's public surface: the client, its outcomes and the §2.8 payload types. */
export { createAgentClient, DEFAULT_MAX_BYTES, DEFAULT_PROBE_TIMEOUT_MS } from './client.js';
export type { AgentClient, AgentClientOptions, ChunkListener, ExecuteOptions, ProbeOptions } from './client.js';
export { AgentFailureKind } from './outcome.js';
export type {
  AgentCallFailure,
  ExecuteOutcome,
  ExecuteSuccess,
  HealthOutcome,
  HealthSuccess,
  InfoOutcome,
  InfoSuccess,
  SuccessMetadata,
} from './outcome.js';
export {
  AgentHealthSchema,
  AgentInfoSchema,
  ExecuteFailureSchema,
  ExecuteMetadataSchema,
  ExecuteRequestSchema,
  ExecuteSuccessSchema,
  validateExecuteRequest,
} from './schemas.js';
export type { AgentHealth, AgentInfo, ExecuteMetadata, ExecuteRequest } from './schemas.js';
