/**
 * Baton's A2A agent card. Written in the v0.3 JSON shape (what `/.well-known/agent-card.json`
 * serves and what v0.3 clients read); the SDK's own parser turns it into the v1.0 card its
 * request handlers deal in. Skills are the workflows the calling key may run: a card fetched
 * without a key lists none and carries nothing of any account, only how to authenticate.
 */
import { parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import type { AgentCard } from '@a2a-js/sdk';
import { grants, Permission } from '../../services/auth/permissions.js';
import type { Principal } from '../../services/auth/principal.js';
import { VERSION } from '../../support/version.js';
import type { WorkflowsService } from '../../services/workflows/service.js';

/** The v0.3 protocol version Baton speaks (method names `message/send`, `tasks/get`, …). */
export const A2A_PROTOCOL_VERSION = '0.3.0';
export const A2A_PATH = '/a2a';
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

export interface CardSkill {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly tags: string[];
  readonly examples?: string[];
  readonly inputModes?: string[];
  readonly outputModes?: string[];
}

/** The v0.3 wire shape of the card (the SDK does not export its v0.3 types). */
export interface LegacyAgentCardJson {
  readonly name: string;
  readonly description: string;
  readonly url: string;
  readonly version: string;
  readonly protocolVersion: string;
  readonly preferredTransport: 'JSONRPC';
  readonly capabilities: { streaming: boolean; pushNotifications: boolean; stateTransitionHistory: boolean };
  readonly defaultInputModes: string[];
  readonly defaultOutputModes: string[];
  readonly skills: CardSkill[];
  readonly supportsAuthenticatedExtendedCard: boolean;
  readonly securitySchemes: Record<string, Record<string, string>>;
  readonly security: Array<Record<string, string[]>>;
}

/** Whether the principal may see workflows as skills (the permission of listing them or running them). */
export function seesWorkflows(principal: Principal): boolean {
  if (principal.kind !== 'key') return false;
  const held = principal.key.permissions;
  return grants(held, Permission.WORKFLOWS_RUN) || grants(held, Permission.WORKFLOWS_READ);
}

export async function buildCard(principal: Principal, workflows: WorkflowsService, publicUrl: string): Promise<LegacyAgentCardJson> {
  const skills: CardSkill[] = [];
  if (principal.kind === 'key' && seesWorkflows(principal)) {
    const listed = await workflows.list(principal.account.id);
    for (const workflow of listed.workflows) {
      skills.push({
        id: workflow.slug,
        name: workflow.name,
        description: workflow.description || `Runs the workflow "${workflow.name}".`,
        tags: ['workflow'],
        inputModes: ['text/plain', 'application/json'],
        outputModes: ['text/plain'],
      });
    }
  }
  return {
    name: 'Baton',
    description: 'Runs workflows of registered agents. Each skill is a workflow; name it in the message metadata as '
      + '`skill` (or `workflow`) unless the key sees only one. A tool call that needs approval pauses the task in '
      + '`input-required`; answer with a message on the same task whose text is `approve` or `reject`.',
    url: `${publicUrl}${A2A_PATH}`,
    version: VERSION,
    protocolVersion: A2A_PROTOCOL_VERSION,
    preferredTransport: 'JSONRPC',
    capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: false },
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain'],
    skills,
    // Skills depend on the key: an anonymous reader asks again with one (here or with agent/getAuthenticatedExtendedCard).
    supportsAuthenticatedExtendedCard: true,
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', description: 'A Baton API key as `Authorization: Bearer <key>`' },
      apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'A Baton API key in `x-api-key`' },
    },
    security: [{ bearer: [] }, { apiKey: [] }],
  };
}

/** The same card as the SDK's v1.0 type, for its request-handler interface. */
export function toCoreCard(card: LegacyAgentCardJson): AgentCard {
  return parseLegacyAgentCard(card);
}
