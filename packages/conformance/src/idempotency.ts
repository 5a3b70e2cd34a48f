// The IdempotencyRecords port's contract, run against every adapter: one owner per key however many
// requests (and processes) race for it, the owner's answer replayed to the same request only, a key given
// up or abandoned taken afresh, and records deleted once they expire. With the Ledger on the same
// database: a debit sent with a key is made only while its request owns the key, so a retry that takes
// an abandoned reservation over and refunds its owner can never see that owner charged after it.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import {
  ABANDONED_AFTER_MS,
  IDEMPOTENCY_TTL_MS,
  type IdempotencyRecords,
  type IdempotencyScope,
  type Ledger,
  LedgerError,
  type StoredAnswer,
} from "@social/core";

export interface IdempotencyFixture {
  records: IdempotencyRecords;
  /** The same database through connections of its own, as a second process reaches it. */
  peer: IdempotencyRecords;
  /** An account the records can belong to, with 1,000 credits, and its key. */
  accountId: string;
  keyId: string;
  /** The ledger on the same database, through the records' connections and through the peer's. */
  ledger: Ledger;
  peerLedger: Ledger;
  /** How many records the database holds. */
  count(): Promise<number>;
  close(): Promise<void>;
}

const answer: StoredAnswer = { status: 200, headers: { "content-type": "application/json" }, body: '{"data":[1]}' };
const T0 = Date.UTC(2026, 10, 24, 12);

export function idempotencyConformance(adapter: string, open: () => Promise<IdempotencyFixture>): void {
  describe(`IdempotencyRecords on ${adapter}`, () => {
    let fixture: IdempotencyFixture;
    let records: IdempotencyRecords;
    let scope: IdempotencyScope;

    beforeEach(async () => {
      fixture = await open();
      records = fixture.records;
      scope = { accountId: fixture.accountId, key: "retry-1" };
    });

    afterEach(() => fixture.close());

    test("the first request owns the key; the same request waits, a different one is refused", async () => {
      expect(await records.reserve(scope, "GET a", "r1", T0)).toEqual({ kind: "reserved" });
      expect(await records.reserve(scope, "GET a", "r2", T0 + 5)).toEqual({ kind: "in_progress" });
      expect(await records.reserve(scope, "GET b", "r3", T0 + 5)).toEqual({ kind: "mismatch" });
      // Keys are per account.
      const other = { ...scope, key: "retry-2" };
      expect(await records.reserve(other, "GET b", "r4", T0)).toEqual({ kind: "reserved" });
    });

    test("the owner's answer is replayed to the same request; nobody else can store one", async () => {
      await records.reserve(scope, "GET a", "r1", T0);
      await records.complete(scope, "r2", { ...answer, body: "{}" }, T0 + 1);
      expect(await records.reserve(scope, "GET a", "r3", T0 + 2)).toEqual({ kind: "in_progress" });
      await records.complete(scope, "r1", answer, T0 + 3);
      expect(await records.reserve(scope, "GET a", "r4", T0 + 4)).toEqual({ kind: "replay", answer });
      expect(await fixture.peer.reserve(scope, "GET a", "r5", T0 + 5)).toEqual({ kind: "replay", answer });
      expect(await records.reserve(scope, "GET b", "r6", T0 + 6)).toEqual({ kind: "mismatch" });
    });

    test("a key given up is taken afresh; an answered one cannot be given up", async () => {
      await records.reserve(scope, "GET a", "r1", T0);
      await records.release(scope, "r1");
      expect(await records.reserve(scope, "GET a", "r2", T0 + 1)).toEqual({ kind: "reserved" });
      await records.complete(scope, "r2", answer, T0 + 2);
      await records.release(scope, "r2");
      expect(await records.reserve(scope, "GET a", "r3", T0 + 3)).toEqual({ kind: "replay", answer });
    });

    test("a reservation left unanswered past ABANDONED_AFTER_MS is taken over, naming its dead owner", async () => {
      await records.reserve(scope, "GET a", "dead", T0);
      expect(await records.reserve(scope, "GET a", "early", T0 + ABANDONED_AFTER_MS - 1)).toEqual({
        kind: "in_progress",
      });
      expect(await records.reserve(scope, "GET a", "heir", T0 + ABANDONED_AFTER_MS)).toEqual({
        kind: "reserved",
        abandonedBy: "dead",
      });
      // The dead owner, were it to come back, cannot store its answer over the heir's.
      await records.complete(scope, "dead", { ...answer, body: "{}" }, T0 + ABANDONED_AFTER_MS + 1);
      await records.complete(scope, "heir", answer, T0 + ABANDONED_AFTER_MS + 2);
      expect(await records.reserve(scope, "GET a", "later", T0 + ABANDONED_AFTER_MS + 3)).toEqual({
        kind: "replay",
        answer,
      });
    });

    test(`an answer is kept ${IDEMPOTENCY_TTL_MS / 3_600_000} hours; expired records are deleted`, async () => {
      await records.reserve(scope, "GET a", "r1", T0);
      await records.complete(scope, "r1", answer, T0);
      await records.reserve({ ...scope, key: "other" }, "GET b", "r2", T0);
      expect(await fixture.count()).toBe(2);
      const justBefore = T0 + IDEMPOTENCY_TTL_MS - 1;
      expect(await records.reserve(scope, "GET a", "r3", justBefore)).toEqual({ kind: "replay", answer });
      expect(await records.reserve(scope, "GET c", "r4", T0 + IDEMPOTENCY_TTL_MS)).toEqual({ kind: "reserved" });
      expect(await fixture.count()).toBe(1);
    });

    test("64 requests racing from two processes for one key: exactly one owns it", async () => {
      const outcomes = await Promise.all(
        Array.from({ length: 64 }, (_, i) =>
          (i % 2 === 0 ? records : fixture.peer).reserve(scope, "GET a", `r${i}`, T0),
        ),
      );
      expect(outcomes.filter((outcome) => outcome.kind === "reserved")).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome.kind === "in_progress")).toHaveLength(63);
    });

    const usage = (requestId: string, idempotencyKey?: string) => ({
      requestId,
      keyId: fixture.keyId,
      endpoint: "tweet",
      credits: 3,
      ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
    });
    const takenOver = (error: unknown) => error instanceof LedgerError && error.code === "idempotency_key_taken";

    test("a debit sent with a key is made only while its request owns the key, unanswered", async () => {
      const { ledger } = fixture;
      await records.reserve(scope, "GET a", "owner", T0);
      expect(await ledger.debit(scope.accountId, usage("owner", scope.key))).toEqual({ ok: true, remaining: 997 });
      // Another request, a key never reserved, a key given up, a key answered: refused, nothing written.
      const refused = (requestId: string, key: string) =>
        ledger.debit(scope.accountId, usage(requestId, key)).then(() => false, takenOver);
      expect(await refused("intruder", scope.key)).toBe(true);
      expect(await refused("r2", "never-reserved")).toBe(true);
      await records.reserve({ ...scope, key: "released" }, "GET a", "r3", T0);
      await records.release({ ...scope, key: "released" }, "r3");
      expect(await refused("r3", "released")).toBe(true);
      await records.reserve({ ...scope, key: "answered" }, "GET a", "r4", T0);
      await records.complete({ ...scope, key: "answered" }, "r4", answer, T0);
      expect(await refused("r4", "answered")).toBe(true);
      expect(await ledger.balance(scope.accountId)).toBe(997);
    });

    test("64 owners racing the retries that take them over, from two processes: no owner stays charged", async () => {
      const rounds = Array.from({ length: 64 }, (_, i) => i);
      for (const i of rounds) await records.reserve({ ...scope, key: `race-${i}` }, "GET a", `owner-${i}`, T0);
      const heirOf = async (i: number) => {
        const taken = { ...scope, key: `race-${i}` };
        const peer = i % 2 === 0 ? fixture.peer : records;
        const reservation = await peer.reserve(taken, "GET a", `heir-${i}`, T0 + ABANDONED_AFTER_MS);
        if (reservation.kind === "reserved" && reservation.abandonedBy !== undefined) {
          await (i % 2 === 0 ? fixture.peerLedger : fixture.ledger).refund(scope.accountId, reservation.abandonedBy);
        }
        return reservation;
      };
      const owner = (i: number) =>
        (i % 2 === 0 ? fixture.ledger : fixture.peerLedger)
          .debit(scope.accountId, usage(`owner-${i}`, `race-${i}`))
          .then(
            (result) => result.ok,
            (error: unknown) => (takenOver(error) ? "refused" : Promise.reject(error)),
          );
      // Half race each other; in the other half the retry has taken over before the owner's debit arrives.
      const race = (i: number) => Promise.all([owner(i), heirOf(i)]);
      const heirFirst = async (i: number) => {
        const heir = await heirOf(i);
        return [await owner(i), heir] as const;
      };
      const outcomes = await Promise.all(rounds.map((i) => (i < 32 ? race(i) : heirFirst(i))));
      const owners = outcomes.map(([outcome]) => outcome);
      const heirs = outcomes.map(([, heir]) => heir);
      expect(heirs.every((reservation) => reservation.kind === "reserved")).toBe(true);
      // Each owner was charged and then refunded, or refused: either way nothing is left charged.
      expect(owners.every((outcome) => outcome === true || outcome === "refused")).toBe(true);
      expect(await fixture.ledger.balance(scope.accountId)).toBe(1_000);
    });
  });
}
