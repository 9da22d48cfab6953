/** Public surface of the selection engine. */
export { buildCatalogIndex } from './catalog.js';
export type { CatalogIndex } from './catalog.js';
export { selectAgents, previewSelection } from './select.js';
export { SCORING } from './score.js';
export type { ScoringParams } from './score.js';
export * from './types.js';
export {
  TARGETS,
  evaluateSelections,
  missedTargets,
  scoreQuery,
  summarize,
} from './evaluate.js';
export type { EvaluationReport, LabeledQuery, Metrics, QueryOutcome } from './evaluate.js';
