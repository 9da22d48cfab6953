/** Every route of the service, in one list. */
import type { Route } from '../route.js';
import type { Services } from '../../services/index.js';
import { a2aRoutes } from './a2a.js';
import { accountRoutes } from './accounts.js';
import { agentRoutes } from './agents.js';
import { apiReferenceRoutes } from './api-reference.js';
import { apiKeyRoutes } from './api-keys.js';
import { authTestRoutes } from './auth-test.js';
import { executionRoutes } from './executions.js';
import { healthRoutes } from './health.js';
import { mcpRoutes } from './mcp.js';
import { workflowRoutes } from './workflows.js';

export function allRoutes(services: Services): Route[] {
  const routes: Route[] = [...healthRoutes(services), ...authTestRoutes(), ...accountRoutes(services), ...apiKeyRoutes(services), ...agentRoutes(services), ...executionRoutes(services.orchestration, services.stores.webhooks), ...workflowRoutes(services.workflows, services.admission), ...mcpRoutes(services), ...a2aRoutes({ workflows: services.workflows, publicUrl: services.config.publicUrl, logger: services.logger })];
  // Last, so the document describes every route above (and itself).
  routes.push(...apiReferenceRoutes(() => routes, services.version));
  return routes;
}
