/**
 * `baton` CLI: serve, migrate, accounts create, keys create. Account and key commands
 * work directly against the database (DESIGN §6), with the same rules as the HTTP API.
 *
 * Each command imports what it runs when it runs: `--version` or `agent check` does not load the
 * server, and the primary of `serve` loads neither the worker's HTTP stack nor its stores.
 */
import cluster from 'node:cluster';
import { Command, InvalidArgumentError, Option } from 'commander';
import { loadConfig, type ConfigOverrides } from '../support/config.js';
import { VERSION } from '../support/version.js';

function integerOption(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a non-negative integer');
  return n;
}

/** An agent budget in milliseconds, within what Baton itself sends (1 ms … 300 s). */
function budgetOption(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 300_000) throw new InvalidArgumentError('expected milliseconds from 1 to 300000');
  return n;
}

const program = new Command()
  .name('baton')
  .description('Baton agent-orchestration service')
  .version(VERSION)
  .showHelpAfterError();

program
  .command('serve', { isDefault: true })
  .description('run the HTTP service (primary plus BATON_WORKERS workers)')
  .option('-p, --port <port>', 'listen port (BATON_PORT)', integerOption)
  .option('-H, --host <host>', 'listen address (BATON_HOST)')
  .option('-w, --workers <n>', 'worker processes (BATON_WORKERS)', integerOption)
  .action(async (options: { port?: number; host?: string; workers?: number }) => {
    const [{ createLogger }, { firstRunNotice, localOperatorToken }] = await Promise.all([import('../support/log.js'), import('../main/local-operator-token.js')]);
    const overrides: ConfigOverrides = {};
    if (options.port !== undefined) overrides.port = options.port;
    if (options.host !== undefined) overrides.host = options.host;
    if (options.workers !== undefined) overrides.workers = options.workers;
    const loaded = loadConfig(process.env, overrides);
    const logger = createLogger(loaded.logLevel, { role: cluster.isPrimary ? 'primary' : 'worker' });
    // The primary runs first, so it is the one that creates the token; workers read the same file.
    const local = localOperatorToken(loaded);
    const config = local === null ? loaded : { ...loaded, adminToken: local.token };
    if (cluster.isPrimary) {
      if (local !== null && !local.created) logger.info({ file: local.file }, 'operator token read from the data directory');
      const notice = local?.created === true ? (port: number) => process.stdout.write(firstRunNotice(local, config.port === 0 ? `http://${config.host}:${port}` : config.publicUrl) + '\n') : undefined;
      const { runPrimary } = await import('../main/primary.js');
      runPrimary(config, logger, notice);
    } else {
      const { runWorker } = await import('../main/worker.js');
      void runWorker(config, logger);
    }
  });

program
  .command('migrate')
  .description('apply pending database migrations and exit')
  .action(async () => {
    const { migrateCommand } = await import('./admin-commands.js');
    await migrateCommand(loadConfig());
  });

program
  .command('accounts')
  .description('manage accounts')
  .command('create')
  .description('create an account and print it as JSON')
  .requiredOption('--name <name>', 'display name')
  .addOption(new Option('--tier <tier>', 'account tier').choices(['DEVELOPER', 'BUSINESS', 'ENTERPRISE']).makeOptionMandatory())
  .option('--limits <json>', 'ENTERPRISE limits as JSON: {"requestsPerMinute":…,"requestsPerDay":…,"concurrentExecutions":…,"queueSize":…}')
  .option('--fee-percent <n>', 'ENTERPRISE platform fee in percent', Number)
  .action(async (options: { name: string; tier: string; limits?: string; feePercent?: number }) => {
    const { createAccountCommand } = await import('./admin-commands.js');
    await createAccountCommand(loadConfig(), options);
  });

program
  .command('keys')
  .description('manage API keys')
  .command('create')
  .description('create an API key; prints it once')
  .requiredOption('--account <id>', 'account id (acct_…)')
  .requiredOption('--name <name>', 'key name')
  .option('--permissions <list>', "comma-separated permissions, or '*'", '*')
  .option('--expires-at <iso>', 'ISO 8601 expiry')
  .option('--ip-whitelist <list>', 'comma-separated addresses or CIDR ranges (ENTERPRISE)')
  .action(async (options: { account: string; name: string; permissions: string; expiresAt?: string; ipWhitelist?: string }) => {
    const { createKeyCommand } = await import('./admin-commands.js');
    await createKeyCommand(loadConfig(), options);
  });

program
  .command('agent')
  .description('work with agents')
  .command('check')
  .description("check an agent against Baton's protocol as Baton calls it; exits 1 if a check fails")
  .argument('<url>', "the agent's base URL, as it would be registered")
  .option('--allow-private', 'allow http and loopback/private addresses (local development)')
  .option('--timeout <ms>', 'budget sent as metadata.timeout on ordinary calls (default 30000)', budgetOption)
  .option('--deadline <ms>', 'short budget the agent must answer within (default 1000)', budgetOption)
  .option('--prompt <text>', 'prompt of the test calls')
  .option('--json', 'print the report as JSON')
  .action(async (url: string, options: { allowPrivate?: boolean; timeout?: number; deadline?: number; prompt?: string; json?: boolean }) => {
    const { agentCheckCommand } = await import('./agent-check.js');
    await agentCheckCommand(url, options);
  });

program
  .command('bench')
  .description('run the bench suite (as `npm run bench`) and write bench/RESULTS.md')
  .option('-d, --duration <seconds>', 'seconds per scenario (BENCH_DURATION, default 5)', integerOption)
  .option('-c, --connections <n>', 'load generator connections (BENCH_CONNECTIONS, default 64)', integerOption)
  .option('-o, --out <file>', 'results file (BENCH_OUT, default bench/RESULTS.md)')
  .action(async (options: { duration?: number; connections?: number; out?: string }) => {
    const { runBench } = await import('../../bench/run.js');
    await runBench({
      ...(options.duration === undefined ? {} : { durationSeconds: options.duration }),
      ...(options.connections === undefined ? {} : { connections: options.connections }),
      ...(options.out === undefined ? {} : { out: options.out }),
    });
  });

program.parseAsync(process.argv).catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  console.error(`baton: ${message}`);
  process.exit(1);
});
