// The ledger suite's reference itself: the serial model keeps the books a ledger must, and its replay
// accepts every history a serial ledger can produce, whatever order its debits completed in, and no
// history that lost, doubled or overdrew a charge.
import { describe, expect, test } from "bun:test";
import type { UsageRecord } from "@social/core";
import { type DebitOutcome, replaySerially, SerialLedger, type SettledDebit } from "../src/serial-ledger.ts";

const NOW = Date.UTC(2026, 10, 24, 12);
const now = () => NOW;

function usage(requestId: string, credits: number, keyId = "key_a"): UsageRecord {
  return { requestId, keyId, endpoint: "/v1/search/recent", credits };
}

function modelWith(credits: number, options?: Parameters<SerialLedger["addKey"]>[2]): SerialLedger {
  const model = new SerialLedger();
  model.openAccount("acct_a", credits);
  model.addKey("acct_a", "key_a", options);
  return model;
}

/** What the debits of `costs` come to applied one by one from `credits`, as a ledger reports them. */
function serialHistory(credits: number, costs: number[]): SettledDebit[] {
  const model = modelWith(credits);
  return costs.map((cost, i) => {
    const record = usage(`r${i}`, cost);
    return { accountId: "acct_a", usage: record, outcome: model.debit("acct_a", record, NOW) };
  });
}

describe("the serial ledger", () => {
  test("charges, refuses for the balance or the key's limit, and rejects as decideDebit does", () => {
    const model = modelWith(10, { limit: { credits: 8, per: "total" } });
    const outcomes: DebitOutcome[] = [
      model.debit("acct_a", usage("r1", 6), NOW),
      model.debit("acct_a", usage("r2", 3), NOW),
      model.debit("acct_a", usage("r1", 1), NOW),
      model.debit("acct_a", usage("r3", 1, "key_missing"), NOW),
      model.debit("acct_missing", usage("r4", 1), NOW),
      model.debit("acct_a", usage("r5", -1), NOW),
    ];
    expect(outcomes).toEqual([
      { ok: true, remaining: 4 },
      { ok: false, reason: "key_limit", remaining: 2, limit: { credits: 8, per: "total" } },
      { error: "duplicate_request" },
      { error: "unknown_key" },
      { error: "unknown_account" },
      { error: "invalid_amount" },
    ]);
    expect(model.books("acct_a")).toEqual({ balance: 4, grants: 10, usageRows: 1, usageCredits: 6, refunds: [] });
  });

  test("a refund gives its charge back once, to its own account only, and frees the key's limit", () => {
    const model = modelWith(10, { limit: { credits: 6, per: "total" } });
    model.openAccount("acct_b", 5);
    model.debit("acct_a", usage("r1", 6), NOW);
    expect(model.refund("acct_b", "r1")).toBeUndefined();
    model.refund("acct_a", "r1");
    model.refund("acct_a", "r1");
    expect(model.refund("acct_missing", "r1")).toEqual({ error: "unknown_account" });
    expect(model.books("acct_a")).toEqual({
      balance: 10,
      grants: 16,
      usageRows: 1,
      usageCredits: 6,
      refunds: [{ refundOf: "r1", credits: 6 }],
    });
    expect(model.books("acct_b").balance).toBe(5);
    expect(model.debit("acct_a", usage("r2", 6), NOW)).toEqual({ ok: true, remaining: 4 });
  });

  test("a history a serial ledger made is replayed whatever order its debits completed in", () => {
    const history = serialHistory(100, [7, 30, 1, 45, 20, 9, 3, 0, 2]);
    expect(history.some((debit) => "ok" in debit.outcome && !debit.outcome.ok)).toBe(true);
    const model = modelWith(100);
    replaySerially(model, history.toReversed(), now);
    expect(model.books("acct_a")).toEqual(modelWithHistory(100, history));
  });

  test("a charge doubled, a refusal of a balance no history had, or an overdraft has no serial order", () => {
    const [first, second] = serialHistory(100, [7, 30]) as [SettledDebit, SettledDebit];
    const doubled = { ...second, outcome: first.outcome, usage: { ...second.usage, credits: first.usage.credits } };
    const refusedWrongly: SettledDebit = { ...second, outcome: { ok: false, reason: "balance", remaining: 50 } };
    const overdrawn: SettledDebit = {
      ...second,
      usage: { ...second.usage, credits: 120 },
      outcome: { ok: true, remaining: -27 },
    };
    for (const history of [
      [first, doubled],
      [first, refusedWrongly],
      [first, overdrawn],
    ]) {
      expect(() => replaySerially(modelWith(100), history, now)).toThrow("no serial order");
    }
  });

  test("as read: a charge that did not see another's yet is explained; one claiming more than was there is not", () => {
    const [first, second] = serialHistory(100, [7, 30]) as [SettledDebit, SettledDebit];
    // The second charge read the balance before the first one had lowered it.
    const stale: SettledDebit = { ...second, outcome: { ok: true, remaining: 70 } };
    expect(() => replaySerially(modelWith(100), [first, stale], now)).toThrow("no serial order");
    replaySerially(modelWith(100), [first, stale], now, "as read");
    const beyond: SettledDebit = { ...second, outcome: { ok: true, remaining: 71 } };
    expect(() => replaySerially(modelWith(100), [first, beyond], now, "as read")).toThrow("outside 63..70");
    const below: SettledDebit = { ...second, outcome: { ok: true, remaining: 62 } };
    expect(() => replaySerially(modelWith(100), [first, below], now, "as read")).toThrow("outside 63..70");
    const overdrawn: SettledDebit = {
      ...second,
      usage: { ...second.usage, credits: 120 },
      outcome: { ok: true, remaining: 0 },
    };
    expect(() => replaySerially(modelWith(100), [first, overdrawn], now, "as read")).toThrow("no serial order");
    // One ledger reports balances that only fall: the second charge cannot have read the first's balance.
    const sameLedger = (debit: SettledDebit): SettledDebit => ({ ...debit, via: "one" });
    expect(() => replaySerially(modelWith(100), [sameLedger(first), sameLedger(stale)], now, "as read")).toThrow(
      "above the 63 its ledger left",
    );
  });
});

/** The books the model keeps after applying `history` in its own order. */
function modelWithHistory(credits: number, history: readonly SettledDebit[]) {
  const model = modelWith(credits);
  for (const debit of history) model.debit(debit.accountId, debit.usage, NOW);
  return model.books("acct_a");
}
