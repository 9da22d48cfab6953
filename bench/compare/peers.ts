/**
 * The peers Baton is compared with, installed by `npm run bench:peers:install` into a scratch
 * folder (never the project's dependencies): Mastra (its built server) and the LangGraph JS dev
 * server, each running a one-step workflow and an approval (human-in-the-loop) workflow whose
 * steps are functions in the server's own process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { stopChild } from '../run.js';
import { HttpClient } from './http.js';
import type { ComparedSystem } from './system.js';

/** Where install-peers.ts puts them (override with BENCH_PEERS_DIR). */
export function peersDir(): string {
  return process.env.BENCH_PEERS_DIR ?? path.join(process.env.HOME ?? '/tmp', '.cache', 'baton-bench-peers');
}

export function mastraInstalled(): boolean {
  return existsSync(path.join(peersDir(), 'mastra', '.mastra', 'output', 'index.mjs'));
}

export function langGraphInstalled(): boolean {
  return existsSync(path.join(peersDir(), 'lg', 'node_modules', '.bin', 'langgraphjs'));
}

async function waitUntilUp(child: ChildProcess, url: string, output: () => string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}: ${output().slice(-800)}`);
    const up = await fetch(url).then((res) => res.status < 500, () => false);
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  child.kill('SIGKILL');
  throw new Error(`not up within ${timeoutMs} ms: ${output().slice(-800)}`);
}

function spawnServer(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string } {
  // detached: the LangGraph CLI starts its server as a child; stopping the group stops both.
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => void (out = (out + chunk.toString()).slice(-20_000)));
  child.stderr!.on('data', (chunk: Buffer) => void (out = (out + chunk.toString()).slice(-20_000)));
  return { child, output: () => out };
}

async function stopGroup(child: ChildProcess): Promise<void> {
  try {
    process.kill(-child.pid!, 'SIGTERM');
  } catch {
    // already gone
  }
  await stopChild(child);
}

const MASTRA_PORT = 4211; // fixed in the peer project's own configuration

export async function startMastra(): Promise<ComparedSystem> {
  const dir = path.join(peersDir(), 'mastra');
  const { child, output } = spawnServer(process.execPath, ['.mastra/output/index.mjs'], dir, { NODE_ENV: 'production', MASTRA_TELEMETRY_DISABLED: '1' });
  const origin = `http://127.0.0.1:${MASTRA_PORT}`;
  await waitUntilUp(child, `${origin}/api/workflows`, output);
  const client = new HttpClient(origin);
  const createRun = async (workflow: string): Promise<string> =>
    String((await client.json('POST', `/api/workflows/${workflow}/create-run`, {})).runId);
  const expectStatus = (result: Record<string, unknown>, status: string): void => {
    if (result.status !== status) throw new Error(`mastra run ended ${String(result.status)}, expected ${status}`);
  };
  return {
    name: 'Mastra 0.24',
    note: 'create-run + start-async; create-run + stream; start-async → suspended → resume-async',
    pid: child.pid!,
    flows: {
      runAndWait: async () => {
        const runId = await createRun('simpleWorkflow');
        expectStatus(await client.json('POST', `/api/workflows/simpleWorkflow/start-async?runId=${runId}`, { inputData: { name: 'bench' } }), 'success');
      },
      stream: async () => {
        const runId = await createRun('simpleWorkflow');
        let text = '';
        await client.stream('POST', `/api/workflows/simpleWorkflow/stream?runId=${runId}`, { inputData: { name: 'bench' } }, (piece) => {
          text += piece;
          return false;
        });
        if (!text.includes('hello from fixed step')) throw new Error(`mastra stream without the step's output: ${text.slice(0, 200)}`);
      },
      hitl: async () => {
        const runId = await createRun('hitlWorkflow');
        expectStatus(await client.json('POST', `/api/workflows/hitlWorkflow/start-async?runId=${runId}`, { inputData: { name: 'bench' } }), 'suspended');
        expectStatus(
          await client.json('POST', `/api/workflows/hitlWorkflow/resume-async?runId=${runId}`, { step: 'approve', resumeData: { approved: true } }),
          'success',
        );
      },
    },
    async stop() {
      await client.close();
      await stopGroup(child);
    },
  };
}

const LANGGRAPH_PORT = 2124;

export async function startLangGraph(): Promise<ComparedSystem> {
  const dir = path.join(peersDir(), 'lg');
  // Its in-memory store is persisted here between runs; each run starts from nothing.
  rmSync(path.join(dir, '.langgraph_api'), { recursive: true, force: true });
  const { child, output } = spawnServer(
    path.join(dir, 'node_modules', '.bin', 'langgraphjs'),
    ['dev', '--no-browser', '--no-reload', '--host', '127.0.0.1', '--port', String(LANGGRAPH_PORT)],
    dir,
    { LANGGRAPH_CLI_NO_ANALYTICS: '1', LOG_LEVEL: 'warn' },
  );
  const origin = `http://127.0.0.1:${LANGGRAPH_PORT}`;
  await waitUntilUp(child, `${origin}/ok`, output);
  const client = new HttpClient(origin);
  return {
    name: 'LangGraph JS dev server',
    note: '/runs/wait; /runs/stream; thread + run to interrupt + resume',
    pid: child.pid!,
    flows: {
      runAndWait: async () => {
        const state = await client.json('POST', '/runs/wait', { assistant_id: 'simple', input: {} });
        if (state.out !== 'hello from fixed node') throw new Error(`langgraph: unexpected state ${JSON.stringify(state).slice(0, 200)}`);
      },
      stream: async () => {
        let text = '';
        await client.stream('POST', '/runs/stream', { assistant_id: 'simple', input: {}, stream_mode: ['values'] }, (piece) => {
          text += piece;
          return false;
        });
        if (!text.includes('hello from fixed node')) throw new Error(`langgraph stream without the node's output: ${text.slice(0, 200)}`);
      },
      hitl: async () => {
        const thread = String((await client.json('POST', '/threads', {})).thread_id);
        const paused = await client.json('POST', `/threads/${thread}/runs/wait`, { assistant_id: 'hitl', input: {} });
        if (paused.__interrupt__ === undefined) throw new Error(`langgraph: no interrupt ${JSON.stringify(paused).slice(0, 200)}`);
        const done = await client.json('POST', `/threads/${thread}/runs/wait`, { assistant_id: 'hitl', command: { resume: true } });
        if (done.approved !== true) throw new Error(`langgraph: not resumed ${JSON.stringify(done).slice(0, 200)}`);
      },
    },
    async stop() {
      await client.close();
      await stopGroup(child);
    },
  };
}
