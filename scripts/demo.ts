/**
 * `npm run demo`: Baton in embedded mode (a throwaway data directory) plus the two example
 * agents, with an account, a key, both agents and a workflow whose `publish` tool is high risk,
 * all registered; then it prints the console URL and curl lines to try an orchestration, a
 * workflow's live stream and an approval. Ctrl-C stops everything and removes the data.
 *
 * BATON_PORT (default 8080) picks the service's port. DEMO_EXIT_WHEN_READY=1 stops once ready
 * (the test uses it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from '../src/support/paths.js';

const port = Number(process.env.BATON_PORT ?? 8080);
const base = `http://localhost:${port}`;
const admin = `demo-operator-${randomBytes(12).toString('hex')}`;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'baton-demo-'));
const children: ChildProcess[] = [];
const READY_LIMIT_MS = Number(process.env.DEMO_START_MS ?? '') || 180_000;

function progress(message: string): void {
  process.stderr.write(`demo: ${message}\n`);
}

/** Starts a TypeScript entry point with tsx; resolves with its output once `ready` matches. */
function start(entry: string, args: string[], env: Record<string, string>, ready: RegExp): Promise<RegExpExecArray> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(packageRoot, entry), ...args], {
    cwd: packageRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${entry} did not start within ${READY_LIMIT_MS / 1000} s:\n${output}`)), READY_LIMIT_MS);
    let started = false;
    const look = (chunk: Buffer): void => {
      // Once ready, output is drained and dropped (kept, a long demo would grow without bound).
      if (started) return;
      output += chunk.toString();
      const match = ready.exec(output);
      if (match !== null) {
        started = true;
        clearTimeout(timer);
        resolve(match);
      }
    };
    child.stdout!.on('data', look);
    child.stderr!.on('data', look);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with ${code}:\n${output}`));
    });
  });
}

async function call(method: string, urlPath: string, token: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(base + urlPath, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const parsed = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${method} ${urlPath}: ${response.status} ${JSON.stringify(parsed)}`);
  return parsed;
}

function stopAll(): void {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
}

async function main(): Promise<void> {
  progress('starting Baton and the example agents…');
  const agentPort = /listening on http:\/\/localhost:(\d+)/;
  // All three start at once: each takes a moment to load through tsx.
  const words = start('examples/agent/server.ts', [], { PORT: '0' }, agentPort);
  const publisher = start('examples/workflow-agent/server.ts', [], { PORT: '0' }, agentPort);
  const service = start(
    'src/cli/main.ts',
    ['serve'],
    {
      BATON_PORT: String(port),
      BATON_HOST: '127.0.0.1',
      BATON_PUBLIC_URL: base,
      BATON_DATA_DIR: dataDir,
      BATON_ADMIN_TOKEN: admin,
      // The example agents listen on this machine; outside a demo, agents must be public HTTPS.
      BATON_ALLOW_PRIVATE_URLS: 'true',
      // Info, since readiness is the 'baton listening' line; the demo does not print the service's log.
      BATON_LOG_LEVEL: 'info',
      DATABASE_URL: '',
      REDIS_URL: '',
    },
    /baton listening/,
  );
  const [[, wordsPort], [, publisherPort]] = await Promise.all([words, publisher, service]);
  progress('registering an account, a key, the agents and a workflow…');
  const account = await call('POST', '/v1/accounts', admin, { name: 'Demo', tier: 'BUSINESS' });
  const issued = await call('POST', '/v1/api-keys', admin, { name: 'demo key', permissions: ['*'], accountId: account.id });
  const key = issued.key as string;
  await call('POST', '/v1/agents', key, {
    id: 'example-word-stats',
    name: 'Word statistics',
    description: 'Counts words and sentences in the prompt and lists the most frequent words.',
    url: `http://127.0.0.1:${wordsPort}`,
    vertical: 'text',
    capabilities: ['text-analysis', 'word-count'],
    pricing: { model: 'per_execution', basePrice: 0.01 },
  });
  await call('POST', '/v1/agents', key, {
    id: 'example-publisher',
    name: 'Report publisher',
    description: 'Drafts a short report from the task and publishes it with the publish tool.',
    url: `http://127.0.0.1:${publisherPort}`,
    vertical: 'publishing',
    capabilities: ['reports', 'publishing'],
    pricing: { model: 'per_execution', basePrice: 0.002 },
  });
  await call('POST', '/v1/workflows', key, {
    slug: 'publish-report',
    name: 'Publish a report',
    description: 'Drafts a report and publishes it; publishing waits for a person to approve',
    steps: [
      {
        id: 'publish',
        agent: 'example-publisher',
        tools: [
          {
            name: 'publish',
            description: 'Publishes a report (a side effect, so a person approves each call)',
            url: `http://127.0.0.1:${publisherPort}/tools/publish`,
            inputSchema: { type: 'object', properties: { title: { type: 'string' }, body: { type: 'string' } } },
            risk: 'high',
          },
        ],
      },
    ],
  });

  process.stdout.write(`
Baton demo is ready (embedded mode, data in ${dataDir}, removed on exit).

Console:  ${base}/console   sign in with the key below
Key:      ${key}

Try, in another terminal:

  KEY=${key}

  # an orchestration: Baton picks the word-count agent and runs it
  curl -s -X POST ${base}/v1/orchestrate -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \\
    -d '{"query":"Count the words in: The cat sat. The dog ran.","selectionCriteria":{"requiredCapabilities":["word-count"]}}'
  curl -s ${base}/v1/executions -H "Authorization: Bearer $KEY"

  # a workflow with a high-risk tool: it pauses until someone approves
  curl -s -X POST ${base}/v1/workflows/publish-report/run -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \\
    -d '{"task":"Quarterly numbers are up 12%"}'
  curl -sN ${base}/api/v1/workflows/execute/<execution_id>/stream -H "Authorization: Bearer $KEY"   # the live stream

  # approve it (or open the console's Approvals tab); the stream above then runs to done
  curl -s ${base}/v1/approvals -H "Authorization: Bearer $KEY"
  curl -s -X POST ${base}/v1/workflows/execute/<execution_id>/approve/<approval_id> -H "Authorization: Bearer $KEY" \\
    -H 'Content-Type: application/json' -d '{"reason":"looks right"}'

Ctrl-C stops the demo.
`);
  if (process.env.DEMO_EXIT_WHEN_READY === '1') {
    stopAll();
    return;
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      stopAll();
      process.exit(0);
    });
  }
}

main().catch((error: unknown) => {
  console.error(`demo: ${error instanceof Error ? error.message : String(error)}`);
  stopAll();
  process.exit(1);
});
