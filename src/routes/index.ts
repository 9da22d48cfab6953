/** Every route of the service, in one list. */
import type { Route } from '../http/route.js';
import type { Services } from '../services.js';
import { accountRoutes } from './accounts.js';
import { agentRoutes } from './agents.js';
import { apiKeyRoutes } from './api-keys.js';
import { authTestRoutes } from './auth-test.js';
import { executionRoutes } from './executions.js';
import { healthRoutes } from './health.js';
import { workflowRoutes } from './workflows.js';

export function allRoutes(services: Services): Route[] {
  return [...healthRoutes(services), ...authTestRoutes(), ...accountRoutes(services), ...apiKeyRoutes(services), ...agentRoutes(services), ...executionRoutes(services.orchestration, services.stores.webhooks), ...workflowRoutes(services.workflows, services.admission)];
}
