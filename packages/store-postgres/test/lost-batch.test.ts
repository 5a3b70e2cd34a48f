// A batch whose COMMIT reached the server while its reply was lost: its debits are answered as an
// outage, uncharged, and the ledger takes back what that transaction charged once it knows it committed.
// Only that: a debit the batch refused (a request id charged before, as a monitor's owed charge sends
// again) keeps its earlier charge.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { UsageRecord } from "@social/core";
import { openPostgres } from "../src/database.ts";
import { PostgresLedger } from "../src/ledger/postgres-ledger.ts";
import { type CommitReplyDropper, commitReplyDropper } from "../testing/commit-reply-dropper.ts";
import { type PostgresServer, startPostgres } from "../testing/pg-server.ts";
import { openPostgresFixture } from "./ledger-fixture.ts";

let server: PostgresServer;
let proxy: CommitReplyDropper;

beforeAll(async () => {
  server = await startPostgres();
  proxy = await commitReplyDropper(Number(new URL(server.url).port));
});

afterAll(() => {
  proxy.stop();
  return server.stop();
});

const usage = (keyId: string, requestId: string, credits: number): UsageRecord => ({
  requestId,
  keyId,
  endpoint: "/v1/tweets/{id}",
  credits,
});

test("a lost batch's charges are refunded, and a request id it refused keeps its earlier charge", async () => {
  const fixture = await openPostgresFixture(server);
  const accountId = await fixture.createAccount(100);
  const { keyId } = await fixture.createKey(accountId);
  const port = new URL(fixture.url).port;
  const throughProxy = await openPostgres(fixture.url.replace(`:${port}/`, `:${proxy.port}/`), { max: 2 });
  try {
    const ledger = new PostgresLedger(throughProxy);
    expect(await ledger.debit(accountId, usage(keyId, "earlier", 3))).toEqual({ ok: true, remaining: 97 });

    proxy.loseNextCommitReply();
    // Queued together, so one batch: the first is refused as already charged, the second charged.
    const lost = await Promise.allSettled([
      ledger.debit(accountId, usage(keyId, "earlier", 3)),
      ledger.debit(accountId, usage(keyId, "new", 5)),
    ]);
    expect(proxy.dropped()).toBe(true);
    expect(lost.map((outcome) => outcome.status)).toEqual(["rejected", "rejected"]);

    // The COMMIT reached the server: "new" was charged, and is given back; "earlier" stays charged.
    // A batch's refunds go in its order, so a refund of "earlier" would come before the one awaited.
    const refundedNew = (refunds: { refundOf: string }[]) => refunds.some((refund) => refund.refundOf === "new");
    let books = await fixture.books(accountId);
    for (let waited = 0; !refundedNew(books.refunds) && waited < 10_000; waited += 100) {
      await Bun.sleep(100);
      books = await fixture.books(accountId);
    }
    expect(books.refunds).toEqual([{ refundOf: "new", credits: 5 }]);
    expect(books.balance).toBe(97);
    expect(books.grants).toBe(books.balance + books.usageCredits);
  } finally {
    await throughProxy.close();
    await fixture.close();
  }
}, 30_000);
