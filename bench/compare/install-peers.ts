/**
 * `npm run bench:peers:install`: copies the peer projects (../shared/peers, or BENCH_PEERS_SRC)
 * into a scratch folder (BENCH_PEERS_DIR, default ~/.cache/baton-bench-peers), installs their
 * dependencies there and builds Mastra's server. Nothing is added to Baton's own dependencies.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../../src/support/paths.js';
import { peersDir } from './peers.js';

const source = process.env.BENCH_PEERS_SRC ?? path.join(packageRoot, '..', 'shared', 'peers');
if (!existsSync(path.join(source, 'mastra', 'package.json'))) {
  console.error(`no peer projects at ${source} (set BENCH_PEERS_SRC)`);
  process.exit(1);
}
const target = peersDir();
mkdirSync(target, { recursive: true });
const run = (cwd: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): void => {
  console.error(`[${path.basename(cwd)}] ${command} ${args.join(' ')}`);
  execFileSync(command, args, { cwd, stdio: 'inherit', env: { ...process.env, ...env } });
};
for (const name of ['mastra', 'lg']) {
  const dir = path.join(target, name);
  cpSync(path.join(source, name), dir, { recursive: true, filter: (p) => !p.includes('node_modules') });
  run(dir, 'npm', ['install', '--no-audit', '--no-fund']);
}
run(path.join(target, 'mastra'), 'npx', ['mastra', 'build'], { MASTRA_TELEMETRY_DISABLED: '1' });
console.error(`peers ready in ${target}`);
