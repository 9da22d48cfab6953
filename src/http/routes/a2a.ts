/**
 * A2A (docs/a2a.md): the agent card at `/.well-known/agent-card.json` (public; with a key, its
 * skills are the workflows the key may run) and the JSON-RPC endpoint `POST /a2a` (a key; each
 * method needs its REST route's permission, see src/http/a2a/handler.ts).
 */
import { Type } from '@sinclair/typebox';
import { A2A_PATH, AGENT_CARD_PATH, buildCard } from '../a2a/card.js';
import { answerA2aPost, type A2aServerServices } from '../a2a/server.js';
import { asKey } from '../../services/auth/principal.js';
import { json, route, type Reply } from '../route.js';
import { compile } from '../../schemas/validation.js';

/** Any JSON: the SDK's transport handler validates the JSON-RPC request itself. */
const anyJson = compile(Type.Unknown());

export function a2aRoutes(services: A2aServerServices) {
  return [
    route({
      method: 'get',
      path: AGENT_CARD_PATH,
      access: { kind: 'optional-key' },
      doc: { summary: 'A2A agent card (skills: the workflows the key may see)', tag: 'a2a', responses: { 200: Type.Unknown({ title: 'AgentCard' }) } },
      handle: async (ctx): Promise<Reply> => json(200, await buildCard(ctx.principal, services.workflows, services.publicUrl)),
    }),
    route({
      method: 'post',
      path: A2A_PATH,
      access: { kind: 'key' },
      body: anyJson,
      doc: {
        summary: 'A2A v0.3 JSON-RPC (message/send, message/stream, tasks/get, tasks/cancel, tasks/resubscribe) over workflow runs',
        tag: 'a2a',
        responses: { 200: Type.Unknown({ title: 'A2aResponse' }) },
      },
      handle: (ctx) => answerA2aPost(asKey(ctx.principal), services, ctx.body, ctx.requestId, ctx.signal),
    }),
  ];
}
