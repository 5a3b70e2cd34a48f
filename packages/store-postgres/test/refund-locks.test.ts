// A serving process bounds how long its statements wait for another session's lock (lock_timeout), so a
// read answers 503 rather than hang behind an operator's ALTER TABLE. A refund must not give up that
// way: the customer would stay charged for an answer they never received. It waits for the lock, and
// lands once it is released.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SQL } from "bun";
import { openPostgres } from "../src/database.ts";
import { ACCOUNT_BALANCE } from "../src/ledger/credit-shards.ts";
import { PostgresLedger } from "../src/ledger/postgres-ledger.ts";
import { holdLocks, waitersOnLocks } from "../testing/locks.ts";
import { type PostgresServer, startPostgres } from "../testing/pg-server.ts";
import { createPostgresAccount, createPostgresKey } from "./ledger-fixture.ts";

/** The serving pool's bound in this test: well below how long the lock is held. */
const LOCK_WAIT_MS = 200;

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(() => server.stop());

test("a refund waits past the serving pool's lock bound for the account's lock, and lands", async () => {
  const url = await server.createDatabase("refund_locks");
  const sql = await openPostgres(url, { max: 4, lockWaitMs: LOCK_WAIT_MS });
  const observer = new SQL(url, { max: 1 });
  try {
    const accountId = await createPostgresAccount(sql, 100);
    const { keyId } = await createPostgresKey(sql, accountId, {});
    const ledger = new PostgresLedger(sql);
    await ledger.debit(accountId, { requestId: "lost", keyId, endpoint: "/v1/search/recent", credits: 7 });

    const held = await holdLocks(url, (tx) => tx`LOCK accounts IN ACCESS EXCLUSIVE MODE`);
    const refund = ledger.refund(accountId, "lost").then(
      () => "refunded",
      (error: unknown) => `failed: ${String(error)}`,
    );
    await waitersOnLocks(observer, 1);
    // Held past the bound, while the refund waits.
    await Bun.sleep(LOCK_WAIT_MS * 3);
    await held.release();
    expect(await refund).toBe("refunded");
    const [row] = await sql<{ balance: string }[]>`
      SELECT ${sql.unsafe(ACCOUNT_BALANCE)} AS balance FROM accounts a WHERE a.id = ${accountId}`;
    expect(Number(row?.balance)).toBe(100);
  } finally {
    await observer.close();
    await sql.close();
  }
});
