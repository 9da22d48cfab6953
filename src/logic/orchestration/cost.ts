/**
 * Execution cost (spec §8, DESIGN §7). Money is integer micro-USD (1 USD = 1,000,000 µUSD)
 * everywhere inside the service, so sums are exact; USD numbers exist only at the edges (agent
 * reports in, API responses out).
 *
 * - estimate: sum of the selected agents' base prices, plus the platform fee.
 * - actual: sum of what each called agent reported as `metadata.cost` (its whole cost), plus
 *   the fee. A successful call that reported no cost is charged its base price; a failed call
 *   counts only if it reported a cost (a timeout or a refused connection costs the user nothing).
 *   Agents that were never called (skipped, not reached, cancelled before their turn) cost nothing.
 * - fee: DEVELOPER 10% with a 0.01 USD minimum, BUSINESS 5%, ENTERPRISE the account's
 *   `feeBasisPoints` (default 0). An account's `feeBasisPoints`, when set, overrides any tier's
 *   percentage. The fee is charged on agent spend only: when nothing was spent on agents (free
 *   agents, or nothing ran) there is no fee, so the DEVELOPER minimum never bills an empty run.
 *
 * Rounding: USD → µUSD rounds to the nearest micro-USD, halves away from zero; percentage fees
 * round half up to the micro-USD. µUSD → USD is exact up to the double nearest the decimal.
 */
import type { Tier } from '../../domain/accounts.js';

export const MICROS_PER_USD = 1_000_000;
/** The DEVELOPER fee floor: 0.01 USD. */
export const DEVELOPER_MIN_FEE_MICROS = 10_000;
/** Default percentages by tier, in basis points (1% = 100). */
export const TIER_FEE_BASIS_POINTS: Readonly<Record<Tier, number>> = {
  DEVELOPER: 1_000,
  BUSINESS: 500,
  ENTERPRISE: 0,
};

/**
 * USD to integer micro-USD, nearest, halves away from zero. The 15-significant-digit pass drops
 * binary noise first, so 1.0000005 USD (stored as 1.00000049999…) still rounds up to 1000001.
 */
export function usdToMicros(usd: number): number {
  if (!Number.isFinite(usd)) throw new RangeError(`not a finite USD amount: ${usd}`);
  const scaled = Number((usd * MICROS_PER_USD).toPrecision(15));
  const micros = Math.sign(scaled) * Math.round(Math.abs(scaled));
  if (!Number.isSafeInteger(micros)) throw new RangeError(`USD amount out of range: ${usd}`);
  // Math.sign(-0.2) * 0 is -0; money has no negative zero.
  return micros === 0 ? 0 : micros;
}

/** Integer micro-USD to a USD number for responses (e.g. 1_234_567 → 1.234567). */
export function microsToUsd(micros: number): number {
  if (!Number.isSafeInteger(micros)) throw new RangeError(`micro-USD must be a safe integer: ${micros}`);
  return micros / MICROS_PER_USD;
}

/** What the fee depends on: the account's tier and its own fee, if any. */
export interface FeeSchedule {
  readonly tier: Tier;
  /** Basis points (1% = 100); null means the tier's default. */
  readonly feeBasisPoints: number | null;
}

/** The platform fee on `agentMicros` of agent spend, in micro-USD. */
export function platformFeeMicros(agentMicros: number, schedule: FeeSchedule): number {
  assertMicros(agentMicros, 'agent spend');
  if (agentMicros === 0) return 0;
  const basisPoints = schedule.feeBasisPoints ?? TIER_FEE_BASIS_POINTS[schedule.tier];
  if (!Number.isInteger(basisPoints) || basisPoints < 0 || basisPoints > 10_000) {
    throw new RangeError(`fee basis points must be an integer 0..10000: ${basisPoints}`);
  }
  // BigInt: µUSD × basis points can pass 2^53 for large sums; half up = floor((2ab + d) / 2d).
  const fee = Number((2n * BigInt(agentMicros) * BigInt(basisPoints) + 10_000n) / 20_000n);
  return schedule.tier === 'DEVELOPER' ? Math.max(fee, DEVELOPER_MIN_FEE_MICROS) : fee;
}

/** Totals of an estimate or an actual: agent spend, fee, and their sum (all micro-USD). */
export interface CostTotals {
  readonly agentsMicros: number;
  readonly feeMicros: number;
  readonly totalMicros: number;
}

export interface AgentPrice {
  readonly agentId: string;
  /** The agent's registered base price, micro-USD. */
  readonly basePriceMicros: number;
}

export interface CostEstimate extends CostTotals {
  /** Per selected agent, in selection order: its base price (the fee is not spread over agents). */
  readonly perAgent: readonly { readonly agentId: string; readonly estimatedMicros: number }[];
}

/** `estimatedCost` of a selection: base prices plus the fee on their sum. */
export function estimateCost(agents: readonly AgentPrice[], schedule: FeeSchedule): CostEstimate {
  let agentsMicros = 0;
  const perAgent = agents.map((agent) => {
    assertMicros(agent.basePriceMicros, `base price of ${agent.agentId}`);
    agentsMicros += agent.basePriceMicros;
    return { agentId: agent.agentId, estimatedMicros: agent.basePriceMicros };
  });
  return { perAgent, ...withFee(agentsMicros, schedule) };
}

/** One agent call that was made, as cost sees it. */
export interface AgentCharge {
  readonly agentId: string;
  readonly succeeded: boolean;
  /** `metadata.cost` in micro-USD as the agent reported it (success or failure body); null if none. */
  readonly reportedMicros: number | null;
  readonly basePriceMicros: number;
}

/** What one call costs: its report; else its base price if it succeeded; else nothing. */
export function chargeMicros(charge: AgentCharge): number {
  if (charge.reportedMicros !== null) {
    assertMicros(charge.reportedMicros, `reported cost of ${charge.agentId}`);
    return charge.reportedMicros;
  }
  if (!charge.succeeded) return 0;
  assertMicros(charge.basePriceMicros, `base price of ${charge.agentId}`);
  return charge.basePriceMicros;
}

export interface ActualCost extends CostTotals {
  readonly perAgent: readonly { readonly agentId: string; readonly chargedMicros: number }[];
}

/** `actualCost` of the calls that were made (including an aggregator agent's call for `custom`). */
export function actualCost(charges: readonly AgentCharge[], schedule: FeeSchedule): ActualCost {
  let agentsMicros = 0;
  const perAgent = charges.map((charge) => {
    const chargedMicros = chargeMicros(charge);
    agentsMicros += chargedMicros;
    return { agentId: charge.agentId, chargedMicros };
  });
  return { perAgent, ...withFee(agentsMicros, schedule) };
}

function withFee(agentsMicros: number, schedule: FeeSchedule): CostTotals {
  const feeMicros = platformFeeMicros(agentsMicros, schedule);
  return { agentsMicros, feeMicros, totalMicros: agentsMicros + feeMicros };
}

// --- maxCost budget ---------------------------------------------------------------------------

/** True when a selection's estimate (fee included) is over the request's `maxCost`; null: no cap. */
export function estimateExceedsBudget(estimate: CostTotals, maxCostMicros: number | null): boolean {
  return maxCostMicros !== null && estimate.totalMicros > maxCostMicros;
}

/** True when what a run has spent so far (fee included) has reached `maxCost`: start nothing more. */
export function budgetReached(spentAgentsMicros: number, schedule: FeeSchedule, maxCostMicros: number | null): boolean {
  if (maxCostMicros === null) return false;
  return withFee(spentAgentsMicros, schedule).totalMicros >= maxCostMicros;
}

/**
 * True when starting one more agent, assuming it costs its base price, keeps the run within
 * `maxCost` (fee included). The ExecutionActor asks before each SEQUENTIAL step or DAG node;
 * an agent's variable cost can still push the actual past the cap, which `budgetReached` catches.
 */
export function canAffordNext(
  spentAgentsMicros: number,
  nextBasePriceMicros: number,
  schedule: FeeSchedule,
  maxCostMicros: number | null,
): boolean {
  if (maxCostMicros === null) return true;
  return withFee(spentAgentsMicros + nextBasePriceMicros, schedule).totalMicros <= maxCostMicros;
}

function assertMicros(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${what} must be a non-negative integer of micro-USD: ${value}`);
}
