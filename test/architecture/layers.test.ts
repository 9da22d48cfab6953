/**
 * The layers of src/ point one way (docs/architecture.md): the rules in .dependency-cruiser.cjs,
 * checked over every import, type-only ones included. `npm run layers` prints the same report.
 */
import { createRequire } from 'node:module';
import { cruise, type IReporterOutput } from 'dependency-cruiser';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import t from 'tap';
import { packageRoot } from '../../src/support/paths.js';

const require = createRequire(import.meta.url);

t.test('no file under src/ imports from a layer above its own, and no import cycle exists', async (t) => {
  process.chdir(packageRoot);
  const config = require(`${packageRoot}/.dependency-cruiser.cjs`) as { forbidden: unknown[]; options: Record<string, unknown> };
  const result: IReporterOutput = await cruise(['src'], { ...config.options, validate: true, ruleSet: { forbidden: config.forbidden } } as never, undefined, {
    tsConfig: extractTSConfig(`${packageRoot}/tsconfig.json`),
  });
  const output = result.output as { summary: { violations: Array<{ from: string; to: string; rule: { name: string } }>; totalCruised: number } };
  const violations = output.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
  t.ok(output.summary.totalCruised > 200, `cruised ${output.summary.totalCruised} modules`);
  t.same(violations, [], 'layer violations');
});

t.test('the rules catch an import that points up', async (t) => {
  process.chdir(packageRoot);
  const config = require(`${packageRoot}/.dependency-cruiser.cjs`) as { forbidden: Array<{ name: string; from: { path: string }; to: { path?: string; pathNot?: string[] } }> };
  const actorsRule = config.forbidden.find((r) => r.name.startsWith('actors-'));
  t.ok(actorsRule, 'an actors rule exists');
  const up = 'src/services/agents/directory.ts';
  const forbidden = new RegExp(actorsRule!.to.path!).test(up) && !actorsRule!.to.pathNot!.some((p) => new RegExp(p).test(up));
  t.ok(forbidden, 'actors → services is forbidden');
  const down = 'src/ports/executions.ts';
  t.notOk(actorsRule!.to.pathNot!.every((p) => !new RegExp(p).test(down)), 'actors → ports is allowed');
});
