/**
 * The supervisor of a worker's AgentActors. It holds no state of its own: the AgentDirectory
 * (src/services/agents/directory.ts) spawns one child per registered agent under it and stops it when the
 * agent is deleted. Children restart within a small budget and are stopped beyond it, so one
 * misbehaving agent actor can never take the registry (or its siblings) down.
 */
import { reply } from './kit/ask.js';
import { defineActor, spawnActor, type ActorDefinition } from './kit/define.js';
import type { KitLogger } from './kit/logger.js';
import type { Ref } from './kit/nact.js';
import { restartBudget } from './kit/supervision.js';
import type { Clock } from './kit/clock.js';
import { agentActor, type AgentActorOptions } from './agent-actor.js';
import type { AgentMessage, AgentRegistryMessage } from './agent-protocol.js';
import type { ActorRuntime } from './root-supervisor.js';

export const agentRegistryActor: ActorDefinition<null, AgentRegistryMessage> = defineActor<null, AgentRegistryMessage>({
  init: () => null,
  handle: (state, msg) => {
    switch (msg.type) {
      case 'agentRegistry.ping':
        reply(msg.replyTo, { type: 'agentRegistry.pong' });
        return state;
    }
  },
});

export interface AgentRegistry {
  readonly ref: Ref<AgentRegistryMessage>;
  /** Spawns the AgentActor of one agent; `name` must be unique among live children. */
  spawnAgent(name: string, options: AgentActorOptions): Ref<AgentMessage>;
}

const CHILD_RESTARTS = { maxRestarts: 3, withinMs: 60_000 } as const;

/** Spawns the registry under the root supervisor. */
export function spawnAgentRegistry(runtime: Pick<ActorRuntime, 'spawnChild' | 'clock'>, logger: KitLogger, name = 'agents'): AgentRegistry {
  const ref = runtime.spawnChild(agentRegistryActor, { name });
  const clock: Clock = runtime.clock;
  const policy = restartBudget({ ...CHILD_RESTARTS, logger, clock, onExhausted: 'stop' });
  return {
    ref,
    spawnAgent: (childName, options) => spawnActor(ref, agentActor(options), { name: childName, clock, onCrash: policy }),
  };
}
