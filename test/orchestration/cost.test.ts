import t from 'tap';
import {
  actualCost,
  budgetReached,
  canAffordNext,
  chargeMicros,
  estimateCost,
  estimateExceedsBudget,
  microsToUsd,
  platformFeeMicros,
  usdToMicros,
  type FeeSchedule,
} from '../../src/logic/orchestration/cost.js';

const developer: FeeSchedule = { tier: 'DEVELOPER', feeBasisPoints: null };
const business: FeeSchedule = { tier: 'BUSINESS', feeBasisPoints: null };
const enterprise: FeeSchedule = { tier: 'ENTERPRISE', feeBasisPoints: null };

t.test('USD converts to micro-USD exactly for ordinary prices', async (t) => {
  t.equal(usdToMicros(0.05), 50_000);
  t.equal(usdToMicros(1.1), 1_100_000);
  t.equal(usdToMicros(0.1 + 0.2), 300_000);
  t.equal(usdToMicros(0), 0);
  t.equal(microsToUsd(1_234_567), 1.234567);
  t.equal(microsToUsd(usdToMicros(12.345678)), 12.345678);
});

t.test('sub-micro amounts round to the nearest micro-USD, halves away from zero', async (t) => {
  t.equal(usdToMicros(0.0000004), 0);
  t.equal(usdToMicros(0.0000005), 1);
  t.equal(usdToMicros(1.0000005), 1_000_001);
  t.equal(usdToMicros(0.0000014999), 1);
  t.equal(usdToMicros(-0.0000005), -1);
  t.throws(() => usdToMicros(Number.NaN), RangeError);
  t.throws(() => microsToUsd(1.5), RangeError);
});

t.test('DEVELOPER pays 10% of agent costs', async (t) => {
  t.equal(platformFeeMicros(1_000_000, developer), 100_000);
  t.equal(platformFeeMicros(123_456, developer), 12_346, '12345.6 rounds half up');
});

t.test('DEVELOPER pays at least 0.01 USD when anything was spent', async (t) => {
  t.equal(platformFeeMicros(50_000, developer), 10_000, '10% of 0.05 is 0.005, raised to 0.01');
  t.equal(platformFeeMicros(100_000, developer), 10_000, 'exactly at the minimum');
  t.equal(platformFeeMicros(100_001, developer), 10_000, '10000.1 rounds down to the minimum');
  t.equal(platformFeeMicros(100_005, developer), 10_001, '10000.5 rounds half up');
});

t.test('no agent spend means no fee, not even the DEVELOPER minimum', async (t) => {
  t.equal(platformFeeMicros(0, developer), 0);
  t.equal(estimateCost([{ agentId: 'free', basePriceMicros: 0 }], developer).totalMicros, 0);
});

t.test('BUSINESS pays 5% with no minimum', async (t) => {
  t.equal(platformFeeMicros(1_000_000, business), 50_000);
  t.equal(platformFeeMicros(10, business), 1, '0.5 micro rounds up');
  t.equal(platformFeeMicros(9, business), 0, '0.45 micro rounds down');
});

t.test('ENTERPRISE pays the account fee, and nothing by default', async (t) => {
  t.equal(platformFeeMicros(1_000_000, enterprise), 0);
  t.equal(platformFeeMicros(1_000_000, { tier: 'ENTERPRISE', feeBasisPoints: 250 }), 25_000);
  t.equal(platformFeeMicros(3, { tier: 'ENTERPRISE', feeBasisPoints: 2_500 }), 1, '0.75 rounds up');
  t.throws(() => platformFeeMicros(1, { tier: 'ENTERPRISE', feeBasisPoints: 10_001 }), RangeError);
});

t.test('large sums keep exact fee arithmetic beyond 2^53 intermediate products', async (t) => {
  const spend = 900_000_000_000_000; // 900 million USD
  t.equal(platformFeeMicros(spend, developer), 90_000_000_000_000);
});

t.test('the estimate is base prices plus the fee, with each agent at its base price', async (t) => {
  const estimate = estimateCost(
    [
      { agentId: 'a', basePriceMicros: 50_000 },
      { agentId: 'b', basePriceMicros: 20_000 },
    ],
    developer,
  );
  t.same(estimate.perAgent, [
    { agentId: 'a', estimatedMicros: 50_000 },
    { agentId: 'b', estimatedMicros: 20_000 },
  ]);
  t.equal(estimate.agentsMicros, 70_000);
  t.equal(estimate.feeMicros, 10_000);
  t.equal(estimate.totalMicros, 80_000);
  t.equal(microsToUsd(estimate.totalMicros), 0.08);
});

t.test('the actual cost counts reported costs as whole costs, not on top of the base price', async (t) => {
  const cost = actualCost(
    [
      { agentId: 'a', succeeded: true, reportedMicros: 70_000, basePriceMicros: 50_000 },
      { agentId: 'b', succeeded: true, reportedMicros: 30_000, basePriceMicros: 20_000 },
    ],
    business,
  );
  t.equal(cost.agentsMicros, 100_000);
  t.equal(cost.feeMicros, 5_000);
  t.equal(cost.totalMicros, 105_000);
});

t.test('a successful call without a reported cost is charged its base price', async (t) => {
  t.equal(chargeMicros({ agentId: 'a', succeeded: true, reportedMicros: null, basePriceMicros: 40_000 }), 40_000);
});

t.test('a failed call counts what it reported, and nothing when it reported nothing', async (t) => {
  const cost = actualCost(
    [
      { agentId: 'a', succeeded: false, reportedMicros: 15_000, basePriceMicros: 50_000 },
      { agentId: 'b', succeeded: false, reportedMicros: null, basePriceMicros: 50_000 },
    ],
    developer,
  );
  t.same(cost.perAgent, [
    { agentId: 'a', chargedMicros: 15_000 },
    { agentId: 'b', chargedMicros: 0 },
  ]);
  t.equal(cost.totalMicros, 25_000, '15000 plus the 0.01 minimum');
});

t.test('a run where every call failed without a cost costs nothing', async (t) => {
  const cost = actualCost([{ agentId: 'a', succeeded: false, reportedMicros: null, basePriceMicros: 50_000 }], developer);
  t.equal(cost.totalMicros, 0);
});

t.test('a selection whose estimate passes maxCost is over budget', async (t) => {
  const estimate = estimateCost([{ agentId: 'a', basePriceMicros: 100_000 }], developer); // 0.11 with fee
  t.equal(estimateExceedsBudget(estimate, 110_000), false, 'exactly at the cap is allowed');
  t.equal(estimateExceedsBudget(estimate, 109_999), true);
  t.equal(estimateExceedsBudget(estimate, null), false, 'no cap');
});

t.test('a run has reached its budget once spend plus fee meets maxCost', async (t) => {
  t.equal(budgetReached(90_000, developer, 100_000), true, '0.09 + 0.01 fee = 0.10');
  t.equal(budgetReached(89_000, developer, 100_000), false);
  t.equal(budgetReached(1_000_000_000, developer, null), false);
});

t.test('the next agent may start only if its base price keeps the run within maxCost', async (t) => {
  t.equal(canAffordNext(50_000, 40_000, developer, 100_000), true, '0.09 + 0.01 = 0.10');
  t.equal(canAffordNext(50_000, 40_001, developer, 100_000), false);
  t.equal(canAffordNext(50_000, 1_000_000, developer, null), true);
});
