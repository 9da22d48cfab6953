/**
 * Example requests of an agent (docs/selection.md): what its owner says it handles, in the
 * words a caller would use. Selection reads them as a field of their own. The limits bound what
 * one agent adds to every worker's catalog index (at most 20 × 500 characters).
 */
export const MAX_EXAMPLES = 20;
export const MAX_EXAMPLE_LENGTH = 500;

/**
 * The examples an agent's GET /info offers: an `examples` array, and the `examples` of A2A-style
 * `skills: [{ name, description, examples }]`, in that order. An agent's own payload is read
 * leniently (it evolves independently of Baton): entries that are not non-blank strings of at
 * most MAX_EXAMPLE_LENGTH characters are skipped, duplicates dropped, the first MAX_EXAMPLES kept.
 */
export function examplesFromInfo(body: unknown): string[] {
  if (typeof body !== 'object' || body === null) return [];
  const { examples, skills } = body as { examples?: unknown; skills?: unknown };
  const candidates: unknown[] = [];
  if (Array.isArray(examples)) candidates.push(...examples.slice(0, MAX_EXAMPLES * 5));
  if (Array.isArray(skills)) {
    for (const skill of skills.slice(0, 100)) {
      const list = typeof skill === 'object' && skill !== null ? (skill as { examples?: unknown }).examples : undefined;
      if (Array.isArray(list)) candidates.push(...list.slice(0, MAX_EXAMPLES * 5));
    }
  }
  const kept: string[] = [];
  for (const value of candidates) {
    if (kept.length >= MAX_EXAMPLES) break;
    if (typeof value !== 'string') continue;
    const text = value.trim();
    if (text.length === 0 || text.length > MAX_EXAMPLE_LENGTH || kept.includes(text)) continue;
    kept.push(text);
  }
  return kept;
}
