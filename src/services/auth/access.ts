/** What a route or tool requires of its caller; the authenticator enforces it. */
import type { Permission } from './permissions.js';

export type Access =
  | { readonly kind: 'public' }
  /** A key when one is sent (checked as on any route), anonymous otherwise, e.g. the A2A agent card. */
  | { readonly kind: 'optional-key' }
  /** Any valid key (no particular permission), e.g. GET /v1/auth/test. */
  | { readonly kind: 'key' }
  /** A key holding `permission`; with `operator`, the operator token is accepted too. */
  | { readonly kind: 'permission'; readonly permission: Permission; readonly operator?: boolean }
  | { readonly kind: 'operator' };
