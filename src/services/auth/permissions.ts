/** The permission vocabulary (spec §5 plus DESIGN §6's workflow permissions). `*` grants all. */

export const Permission = {
  ORCHESTRATE: 'orchestrate',
  AGENTS_READ: 'agents:read',
  AGENTS_WRITE: 'agents:write',
  EXECUTIONS_READ: 'executions:read',
  EXECUTIONS_CANCEL: 'executions:cancel',
  API_KEYS_MANAGE: 'api-keys:manage',
  WORKFLOWS_RUN: 'workflows:run',
  WORKFLOWS_READ: 'workflows:read',
  WORKFLOWS_APPROVE: 'workflows:approve',
  WORKFLOWS_WRITE: 'workflows:write',
} as const;
export type Permission = (typeof Permission)[keyof typeof Permission];

export const ALL = '*';

const known: ReadonlySet<string> = new Set<string>([ALL, ...Object.values(Permission)]);

export function isKnownPermission(name: string): boolean {
  return known.has(name);
}

export function grants(held: readonly string[], needed: Permission): boolean {
  return held.includes(ALL) || held.includes(needed);
}

/** True when every permission in `requested` is one the holder has (no privilege escalation). */
export function isSubset(requested: readonly string[], held: readonly string[]): boolean {
  if (held.includes(ALL)) return true;
  return requested.every((p) => p !== ALL && held.includes(p));
}
