/**
 * `baton agent check URL` end to end: the CLI run against the example agent passes, against a
 * deliberately broken agent names each mistake with its fix and exits 1, and a loopback URL is
 * refused without --allow-private.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { checkAgent, type CheckReport } from '../../src/cli/conformance.js';
import { packageRoot } from '../../src/support/paths.js';
import { startBrokenAgent } from '../fixtures/broken-agent.js';
import { batonArgs } from '../helpers/baton-command.js';
import { uninstrumentedEnv } from '../helpers/child-env.js';
import { startExampleAgent } from '../helpers/example-agent.js';

const run = promisify(execFile);

function baton(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  return run(process.execPath, [...batonArgs(), ...args], {
    cwd: packageRoot,
    env: uninstrumentedEnv(process.env),
  }).then(
    ({ stdout, stderr }) => ({ stdout, stderr, code: 0 }),
    (error: { stdout: string; stderr: string; code: number }) => ({ stdout: error.stdout, stderr: error.stderr, code: error.code }),
  );
}

function byCheck(report: CheckReport): Record<string, { status: string; summary: string; fix?: string }> {
  return Object.fromEntries(report.findings.map((f) => [f.check, f]));
}

t.test('the example agent passes every check and the command exits 0', async (t) => {
  const url = await startExampleAgent(t);
  const result = await baton('agent', 'check', url, '--allow-private');
  t.equal(result.code, 0, result.stdout + result.stderr);
  for (const check of ['url', 'health', 'info', 'execute', 'streaming', 'deadline', 'failure-body', 'request-size']) {
    t.match(result.stdout, new RegExp(`^ok +${check} `, 'm'), `${check} passes`);
  }
  t.match(result.stdout, /streamed \d+ chunks/);
  t.match(result.stdout, /The agent follows the protocol\./);
});

t.test('a broken agent gets each mistake named with its fix, and exit code 1', async (t) => {
  const agent = await startBrokenAgent();
  t.teardown(() => agent.close());
  const result = await baton('agent', 'check', agent.url, '--allow-private', '--json', '--timeout', '5000');
  t.equal(result.code, 1);
  const report = JSON.parse(result.stdout) as CheckReport;
  t.equal(report.ok, false);
  const found = byCheck(report);
  t.equal(found.health?.status, 'fail');
  t.match(found.health?.summary, /timestamp/);
  t.match(found.health?.fix, /"status":"healthy","timestamp"/);
  t.equal(found.info?.status, 'fail');
  t.match(found.info?.summary, /pricing/);
  t.equal(found.execute?.status, 'pass', 'a slow but well-formed answer within the ordinary budget is fine');
  t.equal(found.deadline?.status, 'fail');
  t.match(found.deadline?.summary, /past its 1000 ms budget/);
  t.match(found.deadline?.fix, /metadata\.timeout/);
  t.equal(found['failure-body']?.status, 'fail');
  t.match(found['failure-body']?.summary, /HTTP 500/);
  t.match(found['failure-body']?.fix, /"result":null/);
  t.equal(found['request-size']?.status, 'fail');
  t.match(found['request-size']?.summary, /413/);
});

t.test('a loopback URL is refused without --allow-private, with the flag named in the fix', async (t) => {
  const agent = await startBrokenAgent();
  t.teardown(() => agent.close());
  const report = await checkAgent(agent.url, { allowPrivate: false });
  t.equal(report.ok, false);
  t.equal(report.findings.length, 1);
  t.match(report.findings[0], { check: 'url', status: 'fail', summary: /https/, fix: /--allow-private/ });
  const named = await checkAgent('https://localhost:1/', { allowPrivate: false });
  t.match(named.findings[0], { check: 'url', status: 'fail', summary: /loopback/ });
});

t.test('an address where nothing listens fails health and skips the rest', async (t) => {
  const agent = await startBrokenAgent();
  const url = agent.url;
  await agent.close();
  const report = await checkAgent(url, { allowPrivate: true });
  const found = byCheck(report);
  t.match(found.health, { status: 'fail', fix: /Nothing answered/ });
  t.equal(found.execute?.status, 'skip');
  t.equal(report.ok, false);
});
