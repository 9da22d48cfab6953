/**
 * Written by `npm run fit:selection` (bench/selection-fit.ts); do not edit by hand.
 * Fitted on 350 labeled queries: bench/data/selection-holdout.json (sha256 8a93e16cb6cb2f2d), ../shared/data/selection/queries.json (sha256 f703c7295ca6cdd2).
 * Cut-off on the fitted relevance: 0.65, moved to 0.7 by the bias.
 * On the training queries: top-1 0.819, recall@k 0.786, precision 0.905, no-match 0.829.
 */
import type { Calibration } from './calibration.js';

export const FITTED_CALIBRATION: Calibration = {
  weights: {
    text: 4.0862,
    textGap: 1.6625,
    meaning: 3.3569,
    meaningGap: 3.6879,
    standout: 2.5247,
    example: 0,
    exampleGap: 0,
    hasExamples: 0,
  },
  bias: -4.2044,
  clauseWeight: 0.9,
};
