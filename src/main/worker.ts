/**
 * One worker process: opens the stores, starts the actor system, serves HTTP on the shared port,
 * and drains on shutdown (stop accepting, let in-flight requests finish, flush usage, close).
 */
import { Authenticator } from '../services/auth/authenticator.js';
import { compileAllowlist } from '../domain/ip-allowlist.js';
import { KeyCache } from '../services/auth/key-cache.js';
import { createKeyHasher } from '../services/auth/key-material.js';
import { startKeyRevocations } from '../services/auth/revocations.js';
import { startAgentDirectory } from '../services/agents/directory.js';
import { createAgentClient } from '../adapters/agent-http/index.js';
import type { Config } from '../support/config.js';
import { createSemanticReranker } from '../logic/selection/semantic-rerank.js';
import { createHttpServer } from '../http/app.js';
import { directRateLimiter } from '../services/limits/rate-limiter.js';
import { rateLimitGate } from '../http/rate-limit-gate.js';
import type { Logger } from '../support/log.js';
import { createMetrics } from '../support/metrics/index.js';
import { startRuntimeSampler } from '../support/metrics/runtime.js';
import { consoleRoutes } from '../http/routes/console.js';
import { allRoutes } from '../http/routes/index.js';
import type { Services } from '../services/index.js';
import { openStores } from '../adapters/stores/open.js';
import { requestPathStores } from '../adapters/stores/request-path-stores.js';
import { startExecutionRecords } from '../services/orchestration/execution-records.js';
import { startLeaseKeeper } from '../services/limits/lease-keeper.js';
import { startActorSystem } from '../actors/root-supervisor.js';
import { spawnUsageActor } from '../actors/usage-actor.js';
import { spawnAgentRegistry } from '../actors/agent-registry-actor.js';
import { executionsSupervisor } from '../actors/executions-supervisor.js';
import { dispatch } from '../actors/kit/index.js';
import { leaseSettingsFrom, startConcurrency } from '../services/limits/concurrency.js';
import { createAdmission } from '../services/limits/admission.js';
import { createRecovery } from '../services/orchestration/recovery.js';
import { startStatusWatch } from '../services/orchestration/status-watch.js';
import { createExecutionEvents } from '../services/orchestration/events.js';
import { startOrchestration } from '../services/orchestration/service.js';
import { outboxWebhookSink } from '../services/orchestration/webhook-sink.js';
import { createOutboundDispatcher } from '../adapters/outbound/dispatcher.js';
import { spawnWebhookActor } from '../actors/webhook-actor.js';
import { VERSION } from '../support/version.js';
import { workflowRunsSupervisor } from '../actors/workflow-runs-supervisor.js';
import { loadWorkflowFiles } from '../services/workflows/definition.js';
import { startWorkflows } from '../services/workflows/service.js';
import { createToolCaller } from '../adapters/tools/http-tool-caller.js';
import { createMcpCaller } from '../adapters/tools/mcp-client.js';
import { createGuardedFetch } from '../adapters/outbound/guarded-fetch.js';
import { createA2aAgents } from '../adapters/a2a/client.js';
import { isPrimaryMessage, type WorkerMessage } from './worker-messages.js';
import { startTracing, traceStores } from '../support/telemetry/index.js';

export interface RunningWorker {
  readonly port: number;
  /** Drains and closes everything; resolves when the worker may exit. */
  stop(): Promise<void>;
}

const KEY_CACHE = { max: 50_000, ttlMs: 60_000 };
const SSE_MAX_BUFFERED_BYTES = 1_048_576;
const DRAIN_GRACE_MS = 200;
const FLUSH_TIMEOUT_MS = 5_000;
/** Below the primary's 30 s kill deadline, leaving time to close stores. */
const EXECUTION_DRAIN_MS = 20_000;

export async function startWorker(config: Config, logger: Logger): Promise<RunningWorker> {
  // Before anything else, so store wrappers and actors see whether tracing is on (docs/observability.md).
  const tracing = startTracing({ enabled: config.tracing, version: VERSION, worker: String(config.workerIndex) });
  if (tracing.enabled) logger.info('tracing on: exporting OTLP traces');
  const opened = await openStores(config, { log: logger });
  const stores = {
    ...opened,
    ...traceStores(opened, { durable: config.databaseUrl === null ? 'pglite' : 'postgresql', coordination: config.redisUrl === null ? 'memory' : 'redis' }),
  };
  // What requests wait on is bounded by BATON_STORE_DEADLINE_MS (503 past it); actors and timers
  // keep the unbounded stores and their own retries. Embedded stores cannot be unreachable.
  const onRequest = requestPathStores(stores, {
    durableMs: config.databaseUrl === null ? null : config.storeDeadlineMs,
    coordinationMs: config.redisUrl === null ? null : config.storeDeadlineMs,
  });
  // Admission control: refuse new work up front rather than fail accepted work later.
  const admission = createAdmission({
    maxBacklog: config.maxBacklog,
    maxBacklogMs: config.maxBacklogMs,
    maxEventLoopDelayMs: config.maxEventLoopDelayMs,
    maxAgentQueueWaitMs: config.maxAgentQueueWaitMs,
  });
  const actors = startActorSystem({
    logger,
    onChildFailed: (crash) => logger.error({ crash: String(crash.error) }, 'actor gave up after its restart budget'),
  });
  const usage = spawnUsageActor(actors, { store: stores.durable.usage, logger: logger.child({ actor: 'usage' }) });
  const agentClient = createAgentClient({ allowPrivate: config.allowPrivateUrls });
  const outbound = createOutboundDispatcher({ allowPrivate: config.allowPrivateUrls });
  const a2aAgents = createA2aAgents({ dispatcher: outbound, allowPrivate: config.allowPrivateUrls });
  const agents = await startAgentDirectory({
    store: stores.durable.agents,
    coordination: stores.coordination,
    client: agentClient,
    a2aClientFor: (record) => a2aAgents.forAgent(record),
    registry: spawnAgentRegistry(actors, logger.child({ actor: 'agents' })),
    logger: logger.child({ component: 'agents' }),
    onQueueWait: (waitedMs) => admission.queueWaited(waitedMs),
    ...(config.selectionSemantic
      ? {
          reranker: createSemanticReranker({
            budgetMs: config.selectionSemanticBudgetMs,
            onUnavailable: (error) => logger.error({ err: error }, 'semantic reranker unavailable: selection stays static'),
          }),
        }
      : {}),
  });
  const keyCache = new KeyCache(KEY_CACHE);
  const revocations = await startKeyRevocations(stores.coordination, keyCache, logger);
  const hashKey = createKeyHasher(config.keyHashSecret);
  const metrics = createMetrics(config.statsd, { worker: String(config.workerIndex), logger });
  const webhooks = spawnWebhookActor(actors, {
    store: stores.durable.webhooks,
    logger: logger.child({ actor: 'webhooks' }),
    dispatcher: outbound,
    allowPrivate: config.allowPrivateUrls,
    metrics: { attempt: (event, outcome, durationMs) => metrics.webhookDelivery(event, outcome, durationMs, 0) },
  });
  // Kept current by the executions supervisor, so shutdown can wait for running executions.
  let runningExecutions = 0;
  // Long polls and event streams of executions wake on transitions published here (any worker).
  const statusWatch = await startStatusWatch(stores.coordination, logger.child({ component: 'status-watch' }));
  // Status reads of executions this worker runs (and of finished ones) are answered from memory.
  const executionRecords = await startExecutionRecords(stores.coordination);
  const ownerExecutions = executionRecords.tracked(stores.durable.executions);
  const executionEvents = createExecutionEvents({ metrics, logger, webhooks: outboxWebhookSink(stores.durable.webhooks, webhooks.sender), statusWatch });
  // Concurrency slots, queue and execution leases (docs/limits.md): one facade for orchestration,
  // workflow runs and recovery. Runs share the account's slots and queue with orchestrations.
  const leases = leaseSettingsFrom(config);
  const concurrency = startConcurrency(actors, {
    store: stores.coordination,
    accounts: stores.durable.accounts,
    leaseMs: leases.leaseMs,
    // A slot is taken by the submitting request, so that call is bounded too.
    onRequest: { accounts: onRequest.durable.accounts, acquireDeadlineMs: config.redisUrl === null ? null : config.storeDeadlineMs },
    scanEveryMs: leases.scanEveryMs,
    logger: logger.child({ actor: 'concurrency' }),
    recovery: (slots) =>
      createRecovery({
        executions: ownerExecutions,
        concurrency: slots,
        start: (record) => {
          admission.started(record.id);
          dispatch(supervisor, { type: 'executions.start', record });
        },
        events: executionEvents,
        metrics,
        logger: logger.child({ component: 'recovery' }),
        graceMs: leases.leaseMs,
        // An owner alive here is not orphaned, even if overload let its lease lapse.
        runningHere: (executionId) => leaseKeeper.holds(executionId),
        // PGlite locks its data directory: no other worker can own these executions.
        soleWorker: config.databaseUrl === null,
      }),
  });
  // One heartbeat for the slot leases of every execution and run this worker owns.
  const leaseKeeper = startLeaseKeeper({ concurrency, renewEveryMs: leases.renewEveryMs, logger: logger.child({ component: 'leases' }) });
  const supervisor = actors.spawnChild(
    executionsSupervisor({
      directory: agents,
      executions: ownerExecutions,
      events: executionEvents,
      logger: logger.child({ actor: 'executions' }),
      storeRetryMs: leases.leaseMs,
      leases: leaseKeeper,
      onSettled: (accountId, executionId) => {
        admission.finished(executionId);
        concurrency.release(accountId, executionId);
      },
      onStopped: (executionId) => executionRecords.released(executionId),
      onRunningChanged: (count) => {
        runningExecutions = count;
        metrics.runningExecutions(count);
      },
    }),
    { name: 'executions' },
  );
  const orchestration = await startOrchestration({
    directory: agents,
    // Finished executions are answered from memory even while Postgres is away.
    executions: executionRecords.tracked(onRequest.durable.executions),
    onQueued: (executionId) => executionRecords.released(executionId),
    idempotency: onRequest.durable.idempotency,
    coordination: onRequest.coordination,
    supervisor,
    concurrency,
    admission,
    statusWatch,
    metrics,
    publicUrl: config.publicUrl,
    allowPrivateUrls: config.allowPrivateUrls,
    logger: logger.child({ component: 'orchestration' }),
    onClosedExternally: (record) => executionEvents.transitioned(record),
  });
  // Workflows (docs/workflows.md). Approvals waiting on this worker, for the gauge.
  let approvalsPending = 0;
  const workflowRuns = actors.spawnChild(
    workflowRunsSupervisor({
      directory: agents,
      runs: stores.durable.workflowRuns,
      approvals: stores.durable.approvals,
      events: stores.coordination,
      tools: createToolCaller({ dispatcher: outbound, allowPrivate: config.allowPrivateUrls }),
      mcp: createMcpCaller(createGuardedFetch({ dispatcher: outbound, allowPrivate: config.allowPrivateUrls })),
      metrics,
      logger: logger.child({ actor: 'workflows' }),
      onApprovalPending: (delta) => metrics.approvalsPending((approvalsPending += delta)),
      slots: concurrency,
      storeRetryMs: leases.leaseMs,
      leases: leaseKeeper,
    }),
    { name: 'workflows' },
  );
  const workflows = await startWorkflows({
    workflows: onRequest.durable.workflows,
    runs: onRequest.durable.workflowRuns,
    approvals: onRequest.durable.approvals,
    coordination: onRequest.coordination,
    directory: agents,
    supervisor: workflowRuns,
    metrics,
    concurrency,
    leaseMs: leases.leaseMs,
    logger: logger.child({ component: 'workflows' }),
    allowPrivateUrls: config.allowPrivateUrls,
    fileWorkflows: config.workflowsDir === null ? [] : await loadWorkflowFiles(config.workflowsDir, config.allowPrivateUrls),
    // PGlite locks its data directory: no other worker can share these runs.
    soleWorker: config.databaseUrl === null,
  });
  const storePings = { postgres: () => stores.durable.ping(), ...(config.redisUrl === null ? {} : { redis: () => stores.coordination.ping() }) };
  const sampler = startRuntimeSampler({ metrics, stores: storePings });
  const services: Services = {
    config,
    logger,
    version: VERSION,
    stores: onRequest.durable,
    coordination: onRequest.coordination,
    hashKey,
    revocations,
    agents,
    agentClient,
    a2aAgents,
    metrics,
    orchestration,
    workflows,
    admission,
  };
  const authenticator = new Authenticator({
    keys: onRequest.durable.apiKeys,
    cache: keyCache,
    cacheTrusted: () => stores.coordination.subscriptionHealthy(),
    hash: hashKey,
    adminToken: config.adminToken,
  });
  // The console's static files are not part of the API (nor of its description), so they are added here.
  const server = createHttpServer([...allRoutes(services), ...consoleRoutes()], {
    authenticator,
    usage: usage.recorder,
    logger,
    body: { maxBytes: config.maxBodyBytes, timeoutMs: config.bodyTimeoutMs },
    trustedProxies: config.trustedProxies.length > 0 ? compileAllowlist(config.trustedProxies) : null,
    // The gate calls the limiter directly rather than through the RateLimitActor: bench/RESULTS.md.
    gate: rateLimitGate(directRateLimiter(onRequest.coordination), metrics),
    sseMaxBufferedBytes: SSE_MAX_BUFFERED_BYTES,
    observe: (route, method, status, durationMs) => metrics.httpRequest(route, method, status, durationMs),
  });
  const port = await server.listen(config.host, config.port);
  return {
    port,
    async stop() {
      server.stopListening();
      server.endStreams('server shutting down; reconnect and resume with Last-Event-ID');
      // Long polls answer now with the current status rather than hold shutdown for their wait.
      await statusWatch.stop();
      // Let in-flight requests answer before their stores go away, and running executions finish
      // up to a deadline; those still running then are closed by recovery on another worker (or
      // at the next start) as EXECUTION_INTERRUPTED once their lease lapses.
      await new Promise((resolve) => setTimeout(resolve, DRAIN_GRACE_MS));
      const drainUntil = Date.now() + EXECUTION_DRAIN_MS;
      while (runningExecutions > 0 && Date.now() < drainUntil) await new Promise((resolve) => setTimeout(resolve, 50));
      if (runningExecutions > 0) logger.warn({ running: runningExecutions }, 'shutting down with executions still running');
      try {
        await usage.recorder.flush(FLUSH_TIMEOUT_MS);
      } catch (error) {
        logger.warn({ err: error }, 'usage not fully flushed at shutdown');
      }
      await orchestration.stop();
      await executionRecords.stop();
      await workflows.stop();
      await agents.stop();
      await actors.stop();
      await agentClient.close();
      await outbound.close();
      await revocations.stop();
      sampler.stop();
      admission.stop();
      leaseKeeper.stop();
      await stores.close();
      await metrics.close();
      await tracing.shutdown().catch((error: unknown) => logger.warn({ err: error }, 'exporting the last traces failed'));
      server.closeAll();
    },
  };
}

/** Entry point of a forked worker: start, report ready, drain on the primary's request. */
export async function runWorker(config: Config, logger: Logger): Promise<void> {
  let worker: RunningWorker;
  try {
    worker = await startWorker(config, logger);
  } catch (error) {
    logger.fatal({ err: error }, 'worker failed to start');
    process.exit(1);
  }
  const ready: WorkerMessage = { type: 'worker.ready', port: worker.port };
  process.send?.(ready);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    try {
      await worker.stop();
    } catch (error) {
      logger.error({ err: error }, 'error while stopping worker');
    }
    process.exit(0);
  };
  process.on('message', (message: unknown) => {
    if (isPrimaryMessage(message)) void stop();
  });
  // Ctrl-C reaches the whole process group; the primary coordinates, so workers wait to be told.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => void stop());
  process.on('uncaughtException', (error) => {
    logger.fatal({ err: error }, 'uncaught exception; worker exiting for a clean restart');
    process.exit(1);
  });
}
