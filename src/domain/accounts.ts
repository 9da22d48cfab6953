/** Accounts and their tiers: the vocabulary every layer shares. */
export const Tier = {
  DEVELOPER: 'DEVELOPER',
  BUSINESS: 'BUSINESS',
  ENTERPRISE: 'ENTERPRISE',
} as const;
export type Tier = (typeof Tier)[keyof typeof Tier];
/** Custom limits; only ENTERPRISE accounts carry them (other tiers use the tier table). */
export interface AccountLimits {
  readonly requestsPerMinute: number;
  readonly requestsPerDay: number;
  readonly concurrentExecutions: number;
  readonly queueSize: number;
}
export interface Account {
  readonly id: string; // acct_…
  readonly name: string;
  readonly tier: Tier;
  readonly limits: AccountLimits | null;
  /** Platform fee in basis points (1% = 100); null means the tier default. */
  readonly feeBasisPoints: number | null;
  readonly createdAt: Date;
}
export interface NewAccount {
  readonly id: string;
  readonly name: string;
  readonly tier: Tier;
  readonly limits: AccountLimits | null;
  readonly feeBasisPoints: number | null;
}
