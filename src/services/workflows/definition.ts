/**
 * Workflow definitions beyond what the schema checks (unique ids and tool names, tool URLs under
 * the outbound URL policy, agents the owner can see), their defaults, the client view, and the
 * folder of YAML/JSON files loaded at start (BATON_WORKFLOWS_DIR).
 */
import { WORKFLOW_DEFAULTS } from '../../domain/workflows.js';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { invalidRequest } from '../../domain/errors.js';
import { checkUrlSyntax } from '../../domain/url-policy.js';
import { WorkflowBody } from '../../schemas/workflows.js';
import type { WorkflowDefinition, WorkflowRecord } from '../../domain/workflows.js';
import { compile } from '../../schemas/validation.js';
import { checkMcpServers, mcpServerView } from './mcp-definition.js';


export const workflowBody = compile(WorkflowBody);

export interface DefinitionCheck {
  readonly allowPrivateUrls: boolean;
  /** Whether the owner sees this agent; omitted for file-loaded workflows (agents come later). */
  readonly agentVisible?: (agentId: string) => boolean;
}

/** Throws 400 INVALID_REQUEST naming the field, like schema errors do. */
export function checkDefinition(definition: WorkflowDefinition, check: DefinitionCheck): void {
  const stepIds = new Set<string>();
  definition.steps.forEach((step, i) => {
    if (stepIds.has(step.id)) throw invalidRequest(`steps.${i}.id`, `Step id '${step.id}' is used twice`);
    stepIds.add(step.id);
    if (check.agentVisible !== undefined && !check.agentVisible(step.agent)) {
      throw invalidRequest(`steps.${i}.agent`, `No agent '${step.agent}' is registered for this account`);
    }
    const names = new Set<string>();
    (step.tools ?? []).forEach((tool, j) => {
      if (names.has(tool.name)) throw invalidRequest(`steps.${i}.tools.${j}.name`, `Tool name '${tool.name}' is used twice in step '${step.id}'`);
      names.add(tool.name);
      const url = checkUrlSyntax(tool.url, { allowPrivate: check.allowPrivateUrls });
      if (!url.ok) throw invalidRequest(`steps.${i}.tools.${j}.url`, `Tool URL is not allowed: ${url.message}`);
    });
    checkMcpServers(step, `steps.${i}`, check.allowPrivateUrls);
  });
}

export type WorkflowScope = 'account' | 'global' | 'file';

export function workflowView(definition: WorkflowDefinition, scope: WorkflowScope, record: WorkflowRecord | null) {
  return {
    slug: definition.slug,
    name: definition.name,
    description: definition.description ?? null,
    steps: definition.steps.map((step) => ({
      id: step.id,
      agent: step.agent,
      tools: (step.tools ?? []).map((tool) => ({
        name: tool.name,
        description: tool.description ?? null,
        url: tool.url,
        inputSchema: tool.inputSchema ?? null,
        risk: tool.risk,
        timeoutMs: tool.timeoutMs ?? WORKFLOW_DEFAULTS.toolTimeoutMs,
      })),
      mcpServers: (step.mcpServers ?? []).map(mcpServerView),
    })),
    approvalTimeoutMs: definition.approvalTimeoutMs ?? WORKFLOW_DEFAULTS.approvalTimeoutMs,
    onApprovalTimeout: definition.onApprovalTimeout ?? WORKFLOW_DEFAULTS.onApprovalTimeout,
    maxSteps: definition.maxSteps ?? WORKFLOW_DEFAULTS.maxSteps,
    scope,
    createdAt: record?.createdAt.toISOString() ?? null,
    updatedAt: record?.updatedAt.toISOString() ?? null,
  };
}

/**
 * Reads every `*.yaml`, `*.yml` and `*.json` file of `dir` (not recursive), one definition per
 * file, validated like a POST body. Throws naming the file on the first bad one, so a typo fails
 * the start rather than a run; a slug defined twice fails too.
 */
export async function loadWorkflowFiles(dir: string, allowPrivateUrls: boolean): Promise<WorkflowDefinition[]> {
  const entries = (await readdir(dir)).filter((name) => /\.(ya?ml|json)$/i.test(name)).sort();
  const found = new Map<string, string>();
  const definitions: WorkflowDefinition[] = [];
  for (const name of entries) {
    const file = path.join(dir, name);
    const text = await readFile(file, 'utf8');
    try {
      const raw: unknown = /\.json$/i.test(name) ? JSON.parse(text) : parseYaml(text);
      const definition = workflowBody.parse(raw);
      checkDefinition(definition, { allowPrivateUrls });
      const earlier = found.get(definition.slug);
      if (earlier !== undefined) throw new Error(`slug '${definition.slug}' is also defined in ${earlier}`);
      found.set(definition.slug, name);
      definitions.push(definition);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      const field = (error as { extra?: { field?: string } }).extra?.field;
      throw new Error(`workflow file ${file}: ${field ? `${field}: ` : ''}${detail}`, { cause: error });
    }
  }
  return definitions;
}
