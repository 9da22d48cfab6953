import t from 'tap';
import path from 'node:path';
import { packageRoot } from '../../src/support/paths.js';
import { TARGETS, scoreQuery, summarize } from '../../src/logic/selection/index.js';
import { inProcessSelect, loadDataset, loadExamples, runEvaluation, withExamples } from '../../bench/selection-eval.js';

t.test('metrics follow the data README: top-1 over OK, recall over relevant, precision over OK', async (t) => {
  const q = { id: 'x', query: 'q', relevant: ['a', 'b'], acceptable: ['c'] };
  const o = scoreQuery(q, ['c', 'a', 'z']);
  t.equal(o.top1Hit, true);
  t.equal(o.recall, 0.5);
  t.equal(o.precision, 2 / 3);
  t.equal(o.subsetOfOk, false);
  const m = summarize([o, scoreQuery({ id: 'y', query: 'q', relevant: [] }, [])]);
  t.equal(m.noMatch, 1);
  t.equal(m.withResult, 1);
});

t.test('an empty selection counts as a top-1 miss and is left out of precision', async (t) => {
  const m = summarize([scoreQuery({ id: 'x', query: 'q', relevant: ['a'] }, [])]);
  t.equal(m.top1, 0);
  t.equal(m.precision, null);
});

const HOLDOUT = path.join(packageRoot, 'bench', 'data', 'selection-holdout.json');

const UNSEEN = path.join(packageRoot, 'bench', 'data', 'selection-unseen.json');

// With agents' example requests the shared set meets every target (top-1 0.911, no-match 1.0,
// precision 0.972); without them top-1 is below (0.815), so that reading stays a todo and the
// floor tests below keep what is reached from eroding.
for (const coverage of ['all', 'none'] as const) {
  t.test(
    `selection on the labeled data set meets the quality targets, ${coverage === 'all' ? 'with' : 'without'} examples`,
    coverage === 'none' ? { todo: 'top-1 below target without examples' } : {},
    async (t) => {
      const { agents, queries } = loadDataset();
      const { overall } = await runEvaluation(queries, inProcessSelect(withExamples(agents, loadExamples(), coverage)));
      t.ok((overall.top1 ?? 0) >= TARGETS.top1, `top-1 ${overall.top1} >= ${TARGETS.top1}`);
      t.ok((overall.noMatch ?? 0) >= TARGETS.noMatch, `no-match ${overall.noMatch} >= ${TARGETS.noMatch}`);
      t.ok((overall.precision ?? 0) >= TARGETS.precision, `precision ${overall.precision} >= ${TARGETS.precision}`);
    },
  );
}

const floors = [
  { name: 'the shared data set', file: undefined, coverage: 'none', top1: 0.81, noMatch: 0.93, precision: 0.95, recall: 0.78 },
  { name: 'the shared data set', file: undefined, coverage: 'all', top1: 0.9, noMatch: 1, precision: 0.97, recall: 0.87 },
  { name: 'the independently written hold-out set', file: HOLDOUT, coverage: 'none', top1: 0.76, noMatch: 0.85, precision: 0.89, recall: 0.71 },
  { name: 'the independently written hold-out set', file: HOLDOUT, coverage: 'all', top1: 0.86, noMatch: 0.85, precision: 0.94, recall: 0.82 },
  // Never fitted on: the honest estimate for requests nobody labeled (docs/selection.md).
  { name: 'the unseen set', file: UNSEEN, coverage: 'none', top1: 0.9, noMatch: 0.95, precision: 0.93, recall: 0.91 },
  { name: 'the unseen set', file: UNSEEN, coverage: 'all', top1: 0.96, noMatch: 0.97, precision: 0.96, recall: 0.95 },
] as const;
for (const f of floors) {
  t.test(`selection quality on ${f.name} ${f.coverage === 'all' ? 'with' : 'without'} examples does not fall below the reached floor`, async (t) => {
    const { agents, queries } = loadDataset(undefined, f.file);
    const { overall } = await runEvaluation(queries, inProcessSelect(withExamples(agents, loadExamples(), f.coverage)));
    t.ok((overall.top1 ?? 0) >= f.top1, `top-1 ${overall.top1} >= ${f.top1}`);
    t.ok((overall.noMatch ?? 0) >= f.noMatch, `no-match ${overall.noMatch} >= ${f.noMatch}`);
    t.ok((overall.precision ?? 0) >= f.precision, `precision ${overall.precision} >= ${f.precision}`);
    t.ok((overall.recallAtK ?? 0) >= f.recall, `recall@k ${overall.recallAtK} >= ${f.recall}`);
  });
}
