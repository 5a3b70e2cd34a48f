// decideDebit, every outcome and the order they are decided in: both ledgers decide each debit of a
// batch with it, so what it answers is what SQLite and PostgreSQL answer.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type DebitAccount,
  type DebitDecision,
  type DebitFacts,
  type DebitKey,
  decideDebit,
} from "../../src/billing/debit.ts";
import { type KeySpend, utcDayOf } from "../../src/billing/key-spend.ts";
import { LedgerError } from "../../src/ledger-errors.ts";
import type { KeyLimit, UsageRecord } from "../../src/ports/ledger.ts";

const NOW = Date.UTC(2026, 10, 27, 12);
const TODAY = utcDayOf(NOW);

interface Case {
  name: string;
  balance?: number | undefined;
  /** A key's limit and what it spent; `day` defaults to today. */
  spend?: Partial<KeySpend>;
  limit?: KeyLimit;
  revoked?: boolean;
  expiresAt?: number | null;
  noAccount?: true;
  noKey?: true;
  alreadyCharged?: boolean;
  usage?: Partial<UsageRecord>;
  holder?: { requestId: string; answered: boolean };
  expected:
    | { charged: { remaining: number; total: number; today: number } }
    | { refused: { reason: "balance" | "key_limit"; remaining: number } }
    | { error: LedgerError["code"] };
}

type Facts = Omit<Case, "name" | "expected">;

function decide(test: Facts): DebitDecision<DebitAccount, DebitKey> {
  const spend: KeySpend = { limit: test.limit ?? null, total: 0, today: 0, day: TODAY, ...test.spend };
  const facts: DebitFacts<DebitAccount, DebitKey> = {
    account: test.noAccount ? undefined : { balance: test.balance ?? 100 },
    key: test.noKey ? undefined : { revoked: test.revoked ?? false, expiresAt: test.expiresAt ?? null, spend },
    alreadyCharged: test.alreadyCharged ?? false,
    idempotencyHolder: test.holder,
  };
  const usage: UsageRecord = { requestId: "req_1", keyId: "key_1", endpoint: "/v1/tweets", credits: 10, ...test.usage };
  return decideDebit({ accountId: "acct_1", usage }, facts, NOW);
}

const cases: Case[] = [
  { name: "charges what the balance covers", expected: { charged: { remaining: 90, total: 10, today: 10 } } },
  {
    name: "charges the whole balance",
    balance: 10,
    expected: { charged: { remaining: 0, total: 10, today: 10 } },
  },
  {
    name: "charges nothing for a free request, and still records it",
    usage: { credits: 0 },
    expected: { charged: { remaining: 100, total: 0, today: 0 } },
  },
  { name: "refuses a cost above the balance", balance: 9, expected: { refused: { reason: "balance", remaining: 9 } } },
  {
    name: "refuses a cost above what the key's total limit leaves",
    limit: { credits: 50, per: "total" },
    spend: { total: 45 },
    expected: { refused: { reason: "key_limit", remaining: 5 } },
  },
  {
    name: "refuses a cost above what the key's day limit leaves today",
    limit: { credits: 20, per: "day" },
    spend: { total: 100, today: 15 },
    expected: { refused: { reason: "key_limit", remaining: 5 } },
  },
  {
    name: "starts a day limit over on a new UTC day",
    limit: { credits: 20, per: "day" },
    spend: { total: 100, today: 15, day: TODAY - 1 },
    expected: { charged: { remaining: 90, total: 110, today: 10 } },
  },
  {
    name: "names the balance when it and the key's limit leave as little",
    balance: 5,
    limit: { credits: 50, per: "total" },
    spend: { total: 45 },
    expected: { refused: { reason: "balance", remaining: 5 } },
  },
  {
    name: "names the key's limit when it leaves less than the balance",
    balance: 8,
    limit: { credits: 50, per: "total" },
    spend: { total: 47 },
    expected: { refused: { reason: "key_limit", remaining: 3 } },
  },
  { name: "rejects a revoked key", revoked: true, expected: { error: "revoked_key" } },
  { name: "rejects a key that expired at this instant", expiresAt: NOW, expected: { error: "expired_key" } },
  {
    name: "charges a key that expires later",
    expiresAt: NOW + 1,
    expected: { charged: { remaining: 90, total: 10, today: 10 } },
  },
  { name: "rejects an unknown account", noAccount: true, expected: { error: "unknown_account" } },
  { name: "rejects an unknown key", noKey: true, expected: { error: "unknown_key" } },
  { name: "rejects a request id already charged", alreadyCharged: true, expected: { error: "duplicate_request" } },
  { name: "rejects a negative amount", usage: { credits: -1 }, expected: { error: "invalid_amount" } },
  { name: "rejects a fractional amount", usage: { credits: 1.5 }, expected: { error: "invalid_amount" } },
  {
    name: "rejects an amount that is no number",
    usage: { credits: Number.NaN },
    expected: { error: "invalid_amount" },
  },
  {
    name: "rejects an amount past the exactly representable",
    balance: Number.MAX_SAFE_INTEGER,
    usage: { credits: Number.MAX_SAFE_INTEGER + 1 },
    expected: { error: "invalid_amount" },
  },
  {
    name: "charges a request that still holds its Idempotency-Key",
    usage: { idempotencyKey: "k" },
    holder: { requestId: "req_1", answered: false },
    expected: { charged: { remaining: 90, total: 10, today: 10 } },
  },
  {
    name: "rejects a request whose Idempotency-Key a retry took over",
    usage: { idempotencyKey: "k" },
    holder: { requestId: "req_2", answered: false },
    expected: { error: "idempotency_key_taken" },
  },
  {
    name: "rejects a request whose Idempotency-Key already has an answer",
    usage: { idempotencyKey: "k" },
    holder: { requestId: "req_1", answered: true },
    expected: { error: "idempotency_key_taken" },
  },
  {
    name: "rejects a request whose Idempotency-Key was released",
    usage: { idempotencyKey: "k" },
    expected: { error: "idempotency_key_taken" },
  },
  {
    name: "ignores the holder of a key the request was not sent with",
    holder: { requestId: "req_2", answered: true },
    expected: { charged: { remaining: 90, total: 10, today: 10 } },
  },
  // The order: what a client is told when several things are wrong at once.
  {
    name: "rejects an invalid amount before looking for the account",
    noAccount: true,
    usage: { credits: -1 },
    expected: { error: "invalid_amount" },
  },
  {
    name: "refuses a short balance before looking at the key",
    balance: 1,
    noKey: true,
    expected: { refused: { reason: "balance", remaining: 1 } },
  },
  {
    name: "refuses a short balance of a revoked key",
    balance: 1,
    revoked: true,
    expected: { refused: { reason: "balance", remaining: 1 } },
  },
  {
    name: "rejects a revoked key before an expired one",
    revoked: true,
    expiresAt: NOW,
    expected: { error: "revoked_key" },
  },
  {
    name: "rejects an expired key before a taken Idempotency-Key",
    expiresAt: NOW,
    usage: { idempotencyKey: "k" },
    expected: { error: "expired_key" },
  },
  {
    name: "rejects a taken Idempotency-Key before a request id already charged",
    alreadyCharged: true,
    usage: { idempotencyKey: "k" },
    expected: { error: "idempotency_key_taken" },
  },
];

describe("decideDebit", () => {
  for (const test of cases) {
    it(test.name, () => {
      const decision = decide(test);
      const { expected } = test;
      if ("charged" in expected) {
        assert.ok("charge" in decision, JSON.stringify(decision));
        const { remaining, spend } = decision.charge;
        assert.deepEqual({ remaining, total: spend.total, today: spend.today }, expected.charged);
        assert.equal(spend.day, TODAY);
      } else if ("refused" in expected) {
        assert.ok("result" in decision, JSON.stringify(decision));
        assert.deepEqual({ reason: decision.result.reason, remaining: decision.result.remaining }, expected.refused);
      } else {
        assert.ok("error" in decision, JSON.stringify(decision));
        assert.ok(decision.error instanceof LedgerError);
        assert.equal(decision.error.code, expected.error);
      }
    });
  }

  it("names the key's limit in a key_limit refusal", () => {
    const decision = decide({ limit: { credits: 20, per: "day" }, spend: { today: 15 } });
    assert.deepEqual(decision, {
      result: { ok: false, reason: "key_limit", remaining: 5, limit: { credits: 20, per: "day" } },
    });
  });

  it("hands back the account and key it charged, changed nowhere but in its answer", () => {
    const account = { balance: 100 };
    const key = { revoked: false, expiresAt: null, spend: { limit: null, total: 3, today: 3, day: TODAY } };
    const usage = { requestId: "req_1", keyId: "key_1", endpoint: "/v1/tweets", credits: 10 };
    const facts = { account, key, alreadyCharged: false, idempotencyHolder: undefined };
    const decision = decideDebit({ accountId: "acct_1", usage }, facts, NOW);
    assert.ok("charge" in decision);
    assert.equal(decision.charge.account, account);
    assert.equal(decision.charge.key, key);
    assert.deepEqual(account, { balance: 100 });
    assert.deepEqual(key.spend, { limit: null, total: 3, today: 3, day: TODAY });
  });

  it("decides a batch's later debits on the charges applied before them", () => {
    const account = { balance: 25 };
    const key: DebitKey = { revoked: false, expiresAt: null, spend: { limit: null, total: 0, today: 0, day: null } };
    const outcomes = ["a", "b", "c"].map((requestId) => {
      const usage = { requestId, keyId: "key_1", endpoint: "/v1/tweets", credits: 10 };
      const facts = { account, key, alreadyCharged: false, idempotencyHolder: undefined };
      const decision = decideDebit({ accountId: "acct_1", usage }, facts, NOW);
      if (!("charge" in decision)) return decision;
      decision.charge.account.balance = decision.charge.remaining;
      decision.charge.key.spend = decision.charge.spend;
      return { charged: decision.charge.remaining };
    });
    assert.deepEqual(outcomes, [
      { charged: 15 },
      { charged: 5 },
      { result: { ok: false, reason: "balance", remaining: 5 } },
    ]);
    assert.equal(key.spend.total, 20);
  });
});
