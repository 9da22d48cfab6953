/**
 * Fetching and reading an A2A agent card (v0.3: `url` with `preferredTransport`, or
 * `additionalInterfaces`; v1.0: `supportedInterfaces`): through the guarded fetch, with a
 * deadline and a size cap. Read leniently beyond what Baton needs: a name, a description, a
 * JSON-RPC endpoint, and the skills (name, tags, examples).
 */
import type { GuardedFetch } from '../../ports/guarded-fetch.js';
import { isUrlNotAllowedError } from '../../domain/url-policy.js';

export interface A2aSkill {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly tags: readonly string[];
  readonly examples: readonly string[];
}

export interface A2aCard {
  readonly name: string;
  readonly description: string;
  /** Where JSON-RPC requests go (a card may name other transports too). */
  readonly endpoint: string;
  readonly skills: readonly A2aSkill[];
}

export type CardOutcome =
  | { readonly ok: true; readonly card: A2aCard; readonly status: number; readonly durationMs: number }
  | { readonly ok: false; readonly kind: 'refused' | 'timeout' | 'aborted' | 'http_status' | 'invalid_json' | 'invalid_shape' | 'too_large' | 'url_not_allowed'; readonly message: string; readonly status?: number; readonly durationMs: number };

export const CARD_TIMEOUT_MS = 5_000;
/** Cards are small; 256 KiB leaves room for many skills. */
export const CARD_MAX_BYTES = 256 * 1024;
const MAX_SKILLS = 100;

/** `fetch` should be a guarded fetch capped at CARD_MAX_BYTES. */
export async function fetchAgentCard(fetch: GuardedFetch, cardUrl: string, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<CardOutcome> {
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? CARD_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options.signal === undefined ? deadline : AbortSignal.any([options.signal, deadline]);
  const fail = (kind: Extract<CardOutcome, { ok: false }>['kind'], message: string, status?: number): CardOutcome => ({
    ok: false,
    kind,
    message,
    ...(status === undefined ? {} : { status }),
    durationMs: performance.now() - started,
  });
  let status: number;
  let text: string;
  try {
    const res = await fetch(cardUrl, { headers: { accept: 'application/json' }, signal });
    status = res.status;
    text = await res.text();
  } catch (error) {
    if (deadline.aborted) return fail('timeout', `the agent card did not arrive within ${timeoutMs} ms`);
    if (options.signal?.aborted === true) return fail('aborted', 'cancelled');
    if (isUrlNotAllowedError(error) || isUrlNotAllowedError((error as { cause?: unknown }).cause)) {
      return fail('url_not_allowed', (isUrlNotAllowedError(error) ? error : (error as { cause: Error }).cause).message);
    }
    if ((error as { code?: unknown }).code === 'ERR_RESPONSE_TOO_LARGE') return fail('too_large', `the agent card is larger than ${CARD_MAX_BYTES} bytes`);
    const code = (error as { cause?: { code?: unknown } }).cause?.code;
    return fail('refused', `the agent card could not be fetched${typeof code === 'string' ? ` (${code})` : ''}`);
  }
  if (status < 200 || status > 299) return fail('http_status', `GET of the agent card answered HTTP ${status}`, status);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return fail('invalid_json', 'the agent card is not JSON', status);
  }
  const card = readCard(body, cardUrl);
  if (typeof card === 'string') return fail('invalid_shape', card, status);
  return { ok: true, card, status, durationMs: performance.now() - started };
}

/** The card, or why it cannot be used. Relative endpoint URLs resolve against the card's URL. */
export function readCard(body: unknown, cardUrl: string): A2aCard | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'the agent card is not a JSON object';
  const raw = body as Record<string, unknown>;
  if (typeof raw.name !== 'string' || raw.name.trim() === '') return "the agent card has no 'name'";
  const endpoint = jsonRpcEndpoint(raw);
  if (endpoint === null) return 'the agent card names no JSON-RPC endpoint (url with preferredTransport JSONRPC, or a JSONRPC interface)';
  let resolved: string;
  try {
    resolved = new URL(endpoint, cardUrl).toString();
  } catch {
    return `the agent card's endpoint '${endpoint.slice(0, 200)}' is not a URL`;
  }
  const skills = Array.isArray(raw.skills) ? raw.skills.slice(0, MAX_SKILLS).map(readSkill).filter((s): s is A2aSkill => s !== null) : [];
  return { name: raw.name.trim(), description: typeof raw.description === 'string' ? raw.description : '', endpoint: resolved, skills };
}

function jsonRpcEndpoint(raw: Record<string, unknown>): string | null {
  const preferred = typeof raw.preferredTransport === 'string' ? raw.preferredTransport.toUpperCase() : 'JSONRPC';
  if (typeof raw.url === 'string' && preferred === 'JSONRPC') return raw.url;
  for (const list of [raw.additionalInterfaces, raw.supportedInterfaces]) {
    if (!Array.isArray(list)) continue;
    for (const entry of list) {
      if (typeof entry !== 'object' || entry === null) continue;
      const { url, transport, protocolBinding } = entry as Record<string, unknown>;
      const binding = typeof transport === 'string' ? transport : protocolBinding;
      if (typeof url === 'string' && typeof binding === 'string' && binding.toUpperCase() === 'JSONRPC') return url;
    }
  }
  return null;
}

function readSkill(value: unknown): A2aSkill | null {
  if (typeof value !== 'object' || value === null) return null;
  const raw = value as Record<string, unknown>;
  const strings = (list: unknown): string[] => (Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : []);
  const name = typeof raw.name === 'string' ? raw.name : typeof raw.id === 'string' ? raw.id : null;
  if (name === null) return null;
  return {
    id: typeof raw.id === 'string' ? raw.id : name,
    name,
    description: typeof raw.description === 'string' ? raw.description : '',
    tags: strings(raw.tags),
    examples: strings(raw.examples),
  };
}
