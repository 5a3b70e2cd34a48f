// The debits of a batch whose connection died: refunded once their transaction is known to have
// committed, never while it is still in progress (the charge would land after the refund found
// nothing), dropped when it aborted, and kept through an outage.
import { expect, test } from "bun:test";
import { type TransactionStatus, type Unsettled, UnsettledDebits } from "../src/ledger/unsettled.ts";

const outage = Object.assign(new Error("connection closed"), { code: "ERR_POSTGRES_CONNECTION_CLOSED" });

function settle(statuses: (TransactionStatus | Error)[]) {
  const refunded: string[] = [];
  const asked: string[] = [];
  const debits = new UnsettledDebits(
    async (xid) => {
      asked.push(xid);
      const next = statuses.shift() ?? "committed";
      if (next instanceof Error) throw next;
      return next;
    },
    async (debit: Unsettled) => {
      refunded.push(debit.requestId);
    },
    (error) => error === outage,
  );
  return { debits, refunded, asked };
}

const batch = [
  { accountId: "a", requestId: "r1" },
  { accountId: "a", requestId: "r2" },
];

test("a transaction still in progress, then unreachable, then committed: refunded only at the end", async () => {
  const { debits, refunded, asked } = settle(["in progress", outage, "committed"]);
  debits.add("42", batch);
  await Bun.sleep(1100);
  expect(refunded).toEqual([]);
  await Bun.sleep(1000);
  expect(refunded).toEqual([]);
  expect(debits.pending).toHaveLength(2);
  await Bun.sleep(1000);
  expect(refunded).toEqual(["r1", "r2"]);
  expect(asked).toEqual(["42", "42", "42"]);
  expect(debits.pending).toEqual([]);
}, 10_000);

test("an aborted transaction charged nothing: nothing is refunded", async () => {
  const { debits, refunded } = settle(["aborted"]);
  debits.add("7", batch);
  await Bun.sleep(1100);
  expect(refunded).toEqual([]);
  expect(debits.pending).toEqual([]);
});
