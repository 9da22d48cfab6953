/** Port: idempotency keys of orchestration submissions. */
export type IdempotencyClaim =
  | { readonly kind: 'claimed' }
  | { readonly kind: 'done'; readonly status: number; readonly body: unknown }
  | { readonly kind: 'in_progress' }
  | { readonly kind: 'mismatch' };
export interface IdempotencyStore {
  /**
   * Claims (accountId, key) for a request with this body hash, or reports what holds it. A claim
   * lapses `ttlMs` after it was taken unless completed, so a claimer that died frees the key.
   */
  claim(accountId: string, key: string, requestHash: string, ttlMs: number): Promise<IdempotencyClaim>;
  /** Stores the response of a claimed key, kept `ttlMs` from now. */
  complete(accountId: string, key: string, status: number, body: unknown, ttlMs: number): Promise<void>;
  /** Releases a claim whose request failed in a way a retry may fix (5xx). */
  release(accountId: string, key: string): Promise<void>;
}
