/** Orchestration's pure logic: cost, duration, DAG planning, aggregation, outcomes. No actors, no I/O. */
export * from './aggregate.js';
export * from './cost.js';
export * from './dag.js';
export * from './duration.js';
export * from './outcome.js';
export * from '../../domain/orchestration.js';
