/**
 * Registering an A2A agent by its card URL: the card is fetched (URL policy, deadline, size cap)
 * and the registration's fields not given in the body come from it — name, description, and
 * from its skills the capabilities (skill names and tags) and the examples. The stored `url` is
 * the card's JSON-RPC endpoint, itself under the URL policy.
 */
import { agentCardUnusable, fieldUrlNotAllowed } from '../../domain/errors.js';
import type { GuardedFetch } from '../../ports/guarded-fetch.js';
import { checkUrlSyntax } from '../../domain/url-policy.js';
import type { NewAgent } from '../../domain/agents.js';
import { examplesFromInfo } from '../../domain/agent-examples.js';
import { fetchAgentCard, type A2aCard } from '../../logic/a2a/card.js';

/** What a registration by card URL may state; everything else comes from the card or defaults. */
export interface A2aRegistration {
  readonly a2aCardUrl: string;
  readonly name?: string;
  readonly description?: string;
  readonly vertical?: string;
  readonly capabilities?: readonly string[];
  readonly examples?: readonly string[];
  readonly pricing?: { readonly model: string; readonly basePrice: number };
}

export const A2A_DEFAULT_VERTICAL = 'general';
const MAX_NAME = 200;
const MAX_DESCRIPTION = 4_000;
const MAX_CAPABILITIES = 100;
const MAX_CAPABILITY = 128;

/** The card, or throws 400 URL_NOT_ALLOWED / 422 AGENT_UNREACHABLE naming `a2aCardUrl`. */
export async function probeAgentCard(fetch: GuardedFetch, cardUrl: string, allowPrivate: boolean, signal?: AbortSignal): Promise<A2aCard> {
  const check = checkUrlSyntax(cardUrl, { allowPrivate });
  if (!check.ok) throw fieldUrlNotAllowed('a2aCardUrl', check.reason, check.message);
  const outcome = await fetchAgentCard(fetch, cardUrl, signal === undefined ? {} : { signal });
  if (!outcome.ok) {
    if (outcome.kind === 'url_not_allowed') throw fieldUrlNotAllowed('a2aCardUrl', 'blocked_address', outcome.message);
    throw agentCardUnusable(outcome.kind, outcome.message);
  }
  const endpoint = checkUrlSyntax(outcome.card.endpoint, { allowPrivate });
  if (!endpoint.ok) throw fieldUrlNotAllowed('a2aCardUrl', endpoint.reason, `the card's JSON-RPC endpoint: ${endpoint.message}`);
  return outcome.card;
}

/** The stored fields the card and body give (pricing, timeout and concurrency are the route's). */
export function fieldsFromCard(body: A2aRegistration, card: A2aCard): Pick<NewAgent, 'name' | 'description' | 'url' | 'vertical' | 'capabilities' | 'examples' | 'a2aCardUrl'> {
  const skillLines = card.skills.map((s) => (s.description === '' ? `- ${s.name}` : `- ${s.name}: ${s.description}`));
  const description = [card.description, ...(skillLines.length > 0 ? ['Skills:', ...skillLines] : [])].join('\n').trim();
  return {
    name: body.name ?? clean(card.name, MAX_NAME),
    description: body.description ?? description.slice(0, MAX_DESCRIPTION),
    url: card.endpoint,
    vertical: body.vertical ?? A2A_DEFAULT_VERTICAL,
    capabilities: body.capabilities ?? capabilitiesOf(card),
    examples: body.examples ?? examplesFromInfo({ skills: card.skills }),
    a2aCardUrl: body.a2aCardUrl,
  };
}

/** Skill names, then tags; control characters out, duplicates (any case) dropped, bounded. */
function capabilitiesOf(card: A2aCard): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const label of card.skills.flatMap((s) => [s.name, ...s.tags])) {
    const text = clean(label, MAX_CAPABILITY);
    if (text === '' || seen.has(text.toLowerCase())) continue;
    seen.add(text.toLowerCase());
    out.push(text);
    if (out.length >= MAX_CAPABILITIES) break;
  }
  return out;
}

function clean(text: string, max: number): string {
  return text.replace(/[\u0000-\u001f]+/g, ' ').trim().slice(0, max);
}
