/**
 * Port: a WHATWG `fetch` under the outbound URL policy (for SDK clients that accept one: MCP, A2A).
 * src/adapters/outbound/guarded-fetch.ts implements it over the guarded dispatcher.
 */
export type GuardedFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;
