/**
 * What registration (and a PATCH of the URL) checks before anything is stored: the URL passes the
 * outbound policy (DESIGN §9), the agent answers GET /health with `healthy` and GET /info with a
 * valid §2.8 payload. Each failure becomes an error naming what failed and why.
 */
import { agentUnreachable, urlNotAllowed, type ApiError } from '../../domain/errors.js';
import { checkUrlSyntax } from '../../domain/url-policy.js';
import type { AgentCallFailure } from '../../ports/agent-outcomes.js';
import type { AgentClient } from '../../ports/agent-client.js';
import type { AgentInfo } from '../../schemas/agent-protocol.js';

export interface ProbeResult {
  readonly info: AgentInfo;
  readonly healthMs: number;
}

function probeFailure(probe: 'health' | 'info', failure: AgentCallFailure): ApiError {
  if (failure.kind === 'url_not_allowed') return urlNotAllowed(failure.reason ?? 'blocked_address', failure.message);
  const status = failure.status === undefined ? '' : ` (HTTP ${failure.status})`;
  return agentUnreachable(probe, failure.kind, `${failure.message}${status}`);
}

/** Resolves with the agent's /info, or throws 400 URL_NOT_ALLOWED / 422 AGENT_UNREACHABLE. */
export async function probeAgent(
  client: Pick<AgentClient, 'getHealth' | 'getInfo'>,
  url: string,
  allowPrivate: boolean,
  signal?: AbortSignal,
): Promise<ProbeResult> {
  const check = checkUrlSyntax(url, { allowPrivate });
  if (!check.ok) throw urlNotAllowed(check.reason, check.message);
  const probe = signal === undefined ? {} : { signal };
  const health = await client.getHealth(url, probe);
  if (!health.ok) throw probeFailure('health', health);
  if (!health.healthy) {
    throw agentUnreachable('health', 'unhealthy', `GET /health answered HTTP ${health.status} with status '${health.health.status}'`);
  }
  const info = await client.getInfo(url, probe);
  if (!info.ok) throw probeFailure('info', info);
  return { info: info.info, healthMs: health.durationMs };
}
