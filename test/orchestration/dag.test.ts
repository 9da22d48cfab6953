import t from 'tap';
import { ApiError } from '../../src/domain/errors.js';
import { dagInputs, dependencyFailedError, nextSteps, planDag, planDagOrThrow, type DagPlan } from '../../src/logic/orchestration/dag.js';

const ids = ['a', 'b', 'c', 'd'];

function progress(started: string[], completed: string[], failed: string[]) {
  return { started: new Set(started), completed: new Set(completed), failed: new Set(failed) };
}

t.test('dependencies on selected agents plan into a dependency-first order', async (t) => {
  const plan = planDagOrThrow(ids, { a: ['c'], b: ['a', 'd'] });
  t.same(plan.order, ['c', 'a', 'd', 'b'], 'the earliest-selected ready node goes first');
  t.same(plan.dependsOn.get('b'), ['a', 'd']);
  t.same(plan.dependents.get('a'), ['b']);
});

t.test('absent dependencies make every agent a root in selection order', async (t) => {
  t.same(planDagOrThrow(ids, undefined).order, ids);
  t.same(planDagOrThrow(ids, {}).order, ids);
});

t.test('a repeated dependency is counted once', async (t) => {
  t.same(planDagOrThrow(ids, { b: ['a', 'a'] }).dependsOn.get('b'), ['a']);
});

t.test('a cycle is refused and named', async (t) => {
  const check = planDag(ids, { a: ['b'], b: ['c'], c: ['a'] });
  t.equal(check.ok, false);
  if (check.ok) return;
  t.equal(check.problem, 'cycle');
  t.same(check.cycle, ['a', 'b', 'c', 'a']);
  t.match(check.message, /a → b → c → a/);
  t.equal(check.field, 'dependencies.a');
});

t.test('a cycle behind an acyclic prefix is still found', async (t) => {
  const check = planDag(ids, { a: ['b'], b: ['c'], c: ['d'], d: ['c'] });
  t.equal(check.ok, false);
  if (check.ok) return;
  t.same(check.cycle, ['c', 'd', 'c']);
});

t.test('an unknown agent as a key is refused naming the field', async (t) => {
  const check = planDag(ids, { z: ['a'] });
  t.match(check, { ok: false, problem: 'unknown_agent', field: 'dependencies.z' });
});

t.test('an unknown agent as a dependency is refused naming the field', async (t) => {
  const check = planDag(ids, { a: ['z'] });
  t.match(check, { ok: false, problem: 'unknown_agent', field: 'dependencies.a' });
  if (!check.ok) t.match(check.message, /'z'/);
});

t.test('an agent depending on itself is refused', async (t) => {
  t.match(planDag(ids, { b: ['b'] }), { ok: false, problem: 'self_dependency', field: 'dependencies.b' });
});

t.test('malformed dependencies are refused', async (t) => {
  t.match(planDag(ids, ['a']), { ok: false, problem: 'invalid_shape', field: 'dependencies' });
  t.match(planDag(ids, { a: 'b' }), { ok: false, problem: 'invalid_shape', field: 'dependencies.a' });
  t.match(planDag(ids, { a: [1] }), { ok: false, problem: 'invalid_shape', field: 'dependencies.a' });
});

t.test('planDagOrThrow throws 400 INVALID_REQUEST with the field', async (t) => {
  try {
    planDagOrThrow(ids, { a: ['a'] });
    t.fail('expected a throw');
  } catch (err) {
    t.ok(err instanceof ApiError);
    if (err instanceof ApiError) {
      t.equal(err.status, 400);
      t.equal(err.code, 'INVALID_REQUEST');
      t.same(err.extra, { field: 'dependencies.a' });
    }
  }
});

// a → b → d, a → c
const diamond = (): DagPlan => planDagOrThrow(ids, { b: ['a'], c: ['a'], d: ['b'] });

t.test('only roots are ready at the start', async (t) => {
  t.same(nextSteps(diamond(), progress([], [], [])), { ready: ['a'], blocked: [], done: false });
});

t.test('a node becomes ready once all its dependencies completed', async (t) => {
  const steps = nextSteps(diamond(), progress(['a'], ['a'], []));
  t.same(steps.ready, ['b', 'c']);
  t.equal(steps.done, false);
});

t.test('running nodes are neither ready nor done', async (t) => {
  const steps = nextSteps(diamond(), progress(['a', 'b', 'c'], ['a'], []));
  t.same(steps.ready, []);
  t.equal(steps.done, false);
});

t.test('a failed dependency blocks its dependents transitively', async (t) => {
  const steps = nextSteps(diamond(), progress(['a'], [], ['a']));
  t.same(steps.ready, []);
  t.same(steps.blocked, [
    { agentId: 'b', failedDependencies: ['a'] },
    { agentId: 'c', failedDependencies: ['a'] },
    { agentId: 'd', failedDependencies: ['b'] },
  ]);
  t.equal(steps.done, true);
});

t.test('a failed branch does not stop the other branch', async (t) => {
  const steps = nextSteps(diamond(), progress(['a', 'b', 'c'], ['a', 'c'], ['b']));
  t.same(steps.blocked, [{ agentId: 'd', failedDependencies: ['b'] }]);
  t.equal(steps.done, true);
  const other = nextSteps(diamond(), progress(['a', 'b', 'c'], ['a'], ['b']));
  t.equal(other.done, false, 'c is still running');
});

t.test('a blocked node gets a DEPENDENCY_FAILED error naming the dependency', async (t) => {
  const error = dependencyFailedError({ agentId: 'd', failedDependencies: ['b'] });
  t.equal(error.code, 'DEPENDENCY_FAILED');
  t.match(error.message, /'d' did not run because its dependency 'b' failed/);
});

t.test('the run is done when every node finished', async (t) => {
  t.equal(nextSteps(diamond(), progress(ids, ids, [])).done, true);
});

t.test('a node receives its dependencies outputs keyed by agent id', async (t) => {
  const outputs = new Map<string, unknown>([['a', { x: 1 }], ['b', { y: 2 }]]);
  t.same(dagInputs(diamond(), 'd', outputs), { b: { y: 2 } });
  t.same(dagInputs(diamond(), 'a', outputs), {});
});
