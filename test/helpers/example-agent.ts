/**
 * Starts examples/agent/server.ts as an agent owner would (tsx, PORT=0) and returns its URL;
 * the process is stopped at teardown.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { packageRoot } from '../../src/support/paths.js';
import { uninstrumentedEnv } from './child-env.js';

export async function startExampleAgent(t: { teardown(fn: () => unknown): void }): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/agent/server.ts'], {
    cwd: packageRoot,
    env: uninstrumentedEnv({ ...process.env, PORT: '0' }),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.teardown(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
  let output = '';
  for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
    output += chunk.toString('utf8');
    const match = /listening on (http:\/\/localhost:\d+)/.exec(output);
    if (match?.[1] !== undefined) return match[1].replace('localhost', '127.0.0.1');
  }
  throw new Error(`example agent did not start: ${output}`);
}
