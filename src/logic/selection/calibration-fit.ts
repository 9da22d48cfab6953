/**
 * Written by `npm run fit:selection` (bench/selection-fit.ts); do not edit by hand.
 * Fitted on 350 labeled queries: bench/data/selection-holdout.json (sha256 8a93e16cb6cb2f2d), ../shared/data/selection/queries.json (sha256 f703c7295ca6cdd2).
 * Each query is read against three catalog states: without examples, with every other agent's and
 * with every agent's, from the shared data set's agent-examples.json.
 * Cut-off on the fitted relevance: 0.775, moved to 0.7 by the bias.
 * On the training queries: top-1 0.883, recall@k 0.845, precision 0.957, no-match 0.914.
 */
import type { Calibration } from './calibration.js';

export const FITTED_CALIBRATION: Calibration = {
  weights: {
    text: 5.5114,
    textGap: 0.7926,
    meaning: 2.7169,
    meaningGap: 4.7009,
    standout: 1.9373,
    example: 2.3615,
    exampleGap: 1.9125,
    hasExamples: -1.5747,
  },
  bias: -5.0779,
  clauseWeight: 0.9,
};
