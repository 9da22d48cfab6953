import type { AgentRuntimeStats, CatalogAgent } from '../../src/logic/selection/index.js';

export const AGENTS: readonly CatalogAgent[] = [
  {
    id: 'flight-finder', name: 'Flight Finder', vertical: 'travel',
    description: 'Searches airlines for flights by route, dates and budget, comparing fares and layovers.',
    capabilities: ['flight-search', 'fare-comparison'], pricing: { model: 'per_execution', basePrice: 0.02 },
  },
  {
    id: 'hotel-finder', name: 'Hotel Finder', vertical: 'travel',
    description: 'Finds hotels and vacation rentals for a destination and dates, comparing guest ratings.',
    capabilities: ['hotel-search', 'accommodation-search'], pricing: { model: 'per_execution', basePrice: 0.02 },
  },
  {
    id: 'translator', name: 'Universal Translator', vertical: 'language',
    description: 'Translate everyday text, emails and chat messages between many languages.',
    capabilities: ['translation', 'language-detection'], pricing: { model: 'per_execution', basePrice: 0.01 },
  },
  {
    id: 'legal-translator', name: 'Legal Document Translator', vertical: 'legal',
    description: 'Certified translation of contracts and court filings between English, French and German.',
    capabilities: ['translation', 'legal-translation'], pricing: { model: 'per_execution', basePrice: 0.1 },
  },
  {
    id: 'code-reviewer', name: 'Pull Request Reviewer', vertical: 'devtools',
    description: 'Reviews diffs and pull requests for bugs and missing error handling, leaving inline comments.',
    capabilities: ['code-review', 'static-analysis'], pricing: { model: 'per_execution', basePrice: 0.05 },
  },
];

export const HEALTHY: AgentRuntimeStats = { healthy: true, circuitOpen: false, successRate: 1 };

export function statsFor(overrides: Readonly<Record<string, AgentRuntimeStats>> = {}): Map<string, AgentRuntimeStats> {
  return new Map(AGENTS.map((a) => [a.id, overrides[a.id] ?? HEALTHY] as const));
}
