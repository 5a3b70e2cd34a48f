// Credit shards (src/ledger/credit-shards.ts): processes charging one account do not wait for each
// other's batches, yet every credit of the balance stays spendable, a killed process loses none, and a
// key's limit still holds across processes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { PostgresAccounts } from "../src/accounts/postgres-accounts.ts";
import { openPostgres } from "../src/database.ts";
import { lockAccountsWhole } from "../src/ledger/credit-shards.ts";
import { PostgresLedger } from "../src/ledger/postgres-ledger.ts";
import { holdLocks, waitersOnLocks } from "../testing/locks.ts";
import { type PostgresServer, startPostgres } from "../testing/pg-server.ts";
import { createPostgresAccount, createPostgresKey, openPostgresFixture } from "./ledger-fixture.ts";

const DAY_MS = 86_400_000;

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(() => server.stop());

const usage = (keyId: string, requestId: string, credits = 1) => ({
  requestId,
  keyId,
  endpoint: "/v1/tweets/:id",
  credits,
});

/** Holds every credit shard of the account, as the batches in flight of their processes hold them. */
const holdShards = (url: string, accountId: string) =>
  holdLocks(url, (tx) => tx`SELECT shard FROM credit_shards WHERE account_id = ${accountId} FOR NO KEY UPDATE`);

/** An Idempotency-Key record held locked, so that a batch charging a debit sent with it stops there. */
async function holdIdempotencyKey(sql: SQL, url: string, accountId: string, requestId: string) {
  await sql`INSERT INTO idempotency (account_id, key, fingerprint, request_id, created_at, expires_at)
            VALUES (${accountId}, ${requestId}, 'f', ${requestId}, 0, ${Date.now() + 3_600_000})`;
  return holdLocks(url, (tx) => tx`SELECT 1 FROM idempotency WHERE account_id = ${accountId} FOR UPDATE`);
}

describe("credit shards", () => {
  test("a batch in flight in one process holds up no other process's charges of the same account", async () => {
    const fixture = await openPostgresFixture(server);
    const observer = new SQL(fixture.url, { max: 1 });
    const peer = await fixture.openPeer();
    try {
      const accountId = await fixture.createAccount(1000);
      const { keyId } = await fixture.createKey(accountId);
      expect(await fixture.ledger.debit(accountId, usage(keyId, "first"))).toMatchObject({ ok: true });
      expect(await peer.ledger.debit(accountId, usage(keyId, "peer-first"))).toMatchObject({ ok: true });
      // The first process's next batch stops after it took its locks, before it writes.
      const stall = await holdIdempotencyKey(fixture.sql, fixture.url, accountId, "stalled");
      const stalled = fixture.ledger.debit(accountId, { ...usage(keyId, "stalled"), idempotencyKey: "stalled" });
      await waitersOnLocks(observer, 1);
      const charged = await Promise.race([
        peer.ledger.debit(accountId, usage(keyId, "second")),
        waitersOnLocks(observer, 2).then(() => "waited for a lock"),
      ]);
      await stall.release();
      expect(charged).toMatchObject({ ok: true });
      expect(await stalled).toMatchObject({ ok: true });
      expect(await fixture.books(accountId)).toMatchObject({ balance: 996, usageCredits: 4 });
    } finally {
      await observer.close();
      await fixture.close();
    }
  });

  test("every credit is spendable, whichever process's shard holds it, and the last one refused says 0", async () => {
    const fixture = await openPostgresFixture(server);
    const peer = await fixture.openPeer();
    try {
      const accountId = await fixture.createAccount(100);
      const { keyId } = await fixture.createKey(accountId);
      // The first process's shard takes more than its one credit from the account's row.
      expect(await fixture.ledger.debit(accountId, usage(keyId, "first"))).toEqual({ ok: true, remaining: 99 });
      const remaining: number[] = [];
      for (let i = 0; i < 99; i++) {
        const result = await peer.ledger.debit(accountId, usage(keyId, `peer-${i}`));
        remaining.push(result.remaining);
      }
      expect(remaining).toEqual(Array.from({ length: 99 }, (_, i) => 98 - i));
      expect(await peer.ledger.debit(accountId, usage(keyId, "past"))).toMatchObject({
        ok: false,
        reason: "balance",
        remaining: 0,
      });
      expect(await fixture.ledger.debit(accountId, usage(keyId, "past-too"))).toMatchObject({
        ok: false,
        remaining: 0,
      });
      expect(await fixture.books(accountId)).toMatchObject({ balance: 0, grants: 100, usageCredits: 100 });
    } finally {
      await fixture.close();
    }
  });

  test("a debit larger than any one shard is charged from all of them, as one balance", async () => {
    const fixture = await openPostgresFixture(server);
    const peer = await fixture.openPeer();
    try {
      const accountId = await fixture.createAccount(64);
      const { keyId } = await fixture.createKey(accountId);
      // Each process's shard fills up from the row; then the row is all but spent.
      await fixture.ledger.debit(accountId, usage(keyId, "a"));
      await peer.ledger.debit(accountId, usage(keyId, "b"));
      await fixture.ledger.debit(accountId, usage(keyId, "c", 40));
      expect(await peer.ledger.debit(accountId, usage(keyId, "all-the-rest", 22))).toEqual({ ok: true, remaining: 0 });
      expect(await fixture.books(accountId)).toMatchObject({ balance: 0, usageCredits: 64 });
    } finally {
      await fixture.close();
    }
  });

  test("a process killed while charging leaves its shard's credits in the balance, folded back once idle", async () => {
    const fixture = await openPostgresFixture(server);
    try {
      const accountId = await fixture.createAccount(100_000);
      const { keyId } = await fixture.createKey(accountId);
      const child = Bun.spawn(
        [process.execPath, `${import.meta.dir}/charging-process.ts`, fixture.url, accountId, keyId],
        {
          stdout: "pipe",
          stderr: "inherit",
        },
      );
      const reader = child.stdout.getReader();
      const { value } = await reader.read();
      expect(new TextDecoder().decode(value)).toContain("charging");
      // Killed mid-load: some of its batches are being written.
      await Bun.sleep(200);
      child.kill("SIGKILL");
      await child.exited;

      const books = await fixture.books(accountId);
      expect(books.usageCredits).toBeGreaterThan(0);
      expect(books.grants).toBe(books.balance + books.usageCredits);
      const [stranded] = await fixture.sql<{ credits: string }[]>`
        SELECT coalesce(sum(credits), 0) AS credits FROM credit_shards WHERE account_id = ${accountId}`;
      expect(Number(stranded?.credits)).toBeGreaterThan(0);
      const spentBefore = await keySpend(fixture.sql, keyId);

      // A shard idle past the fold's age goes back into the account's row, its key's spend into the key's.
      const survivor = new PostgresLedger(fixture.sql, { foldIdleAfterMs: 0 });
      try {
        expect(await survivor.foldIdleShards()).toBe(1);
      } finally {
        survivor.close();
      }
      const [rows] = await fixture.sql<{ shards: string; parts: string; balance: string }[]>`
        SELECT (SELECT count(*) FROM credit_shards) AS shards, (SELECT count(*) FROM key_spend_shards) AS parts,
               (SELECT balance FROM accounts WHERE id = ${accountId}) AS balance`;
      expect(rows).toEqual({ shards: "0", parts: "0", balance: String(books.balance) });
      expect(await keySpend(fixture.sql, keyId)).toEqual(spentBefore);
      expect(spentBefore?.spent_total).toBe(String(books.usageCredits));
      // And all of it is spendable.
      expect(await fixture.ledger.debit(accountId, usage(keyId, "the-rest", books.balance))).toEqual({
        ok: true,
        remaining: 0,
      });
    } finally {
      await fixture.close();
    }
  });

  test("a fold changes no key's spend: charges and a refund on different days, in different shards", async () => {
    const fixture = await openPostgresFixture(server);
    try {
      const accountId = await fixture.createAccount(1000);
      const { keyId } = await fixture.createKey(accountId, { limit: { credits: 50, per: "day" } });
      const day1 = 20_000 * DAY_MS + 3_600_000;
      const first = new PostgresLedger(fixture.sql, { now: () => day1 });
      const second = new PostgresLedger(fixture.sql, { now: () => day1 + DAY_MS, foldIdleAfterMs: 0 });
      try {
        await first.debit(accountId, usage(keyId, "day1", 5));
        await second.debit(accountId, usage(keyId, "day2", 3));
        await first.refund(accountId, "day1");
        const before = await keySpend(fixture.sql, keyId);
        expect(before).toMatchObject({ spent_total: "3", spent_today: "3", spent_day: "20001" });
        // Folded as if long idle: the second ledger's clock is a day ahead of the first's shard.
        expect(await second.foldIdleShards()).toBe(1);
        const [parts] = await fixture.sql<{ parts: string }[]>`SELECT count(*) AS parts FROM key_spend_shards`;
        expect(parts?.parts).toBe("1");
        expect(await keySpend(fixture.sql, keyId)).toEqual(before);
        expect(await fixture.books(accountId)).toMatchObject({ balance: 997, usageCredits: 8 });
      } finally {
        first.close();
        second.close();
      }
    } finally {
      await fixture.close();
    }
  });

  test("a key's limit set while another process's batch is in flight waits for that batch to commit", async () => {
    const url = await server.createDatabase(`shards_limit_${process.pid}`);
    const sql = await openPostgres(url, { max: 4 });
    const observer = new SQL(url, { max: 1 });
    try {
      const accountId = await createPostgresAccount(sql, 100);
      const { keyId } = await createPostgresKey(sql, accountId, {});
      const ledger = new PostgresLedger(sql);
      await ledger.debit(accountId, usage(keyId, "before"));
      const held = await holdShards(url, accountId);
      const accounts = new PostgresAccounts(sql);
      let settled = false;
      const update = accounts
        .updateKey(keyId, { name: "limited", limit: { credits: 10, per: "total" } })
        .finally(() => {
          settled = true;
        });
      await waitersOnLocks(observer, 1);
      expect(settled).toBe(false);
      await held.release();
      expect((await update).allowance).toEqual({ credits: 10, per: "total", remaining: 9 });
    } finally {
      await observer.close();
      await sql.close();
    }
  });

  test("a key limited while a process without a shard is charging it is held to the limit across processes", async () => {
    const fixture = await openPostgresFixture(server);
    const observer = new SQL(fixture.url, { max: 1 });
    const peer = await fixture.openPeer();
    try {
      const accountId = await fixture.createAccount(10_000);
      const { keyId } = await fixture.createKey(accountId);
      // The fixture's process has a shard; the peer's has none yet.
      expect(await fixture.ledger.debit(accountId, usage(keyId, "first"))).toMatchObject({ ok: true });
      // A limit being set: updateKey's locks, its change made and not yet committed.
      const limiting = await holdLocks(fixture.url, async (tx) => {
        await tx`SELECT 1 FROM credit_shards WHERE account_id = ${accountId} ORDER BY shard FOR NO KEY UPDATE`;
        await tx`SELECT 1 FROM accounts WHERE id = ${accountId} FOR NO KEY UPDATE`;
        await tx`UPDATE api_keys SET credit_limit = 100, limit_per = 'total' WHERE id = ${keyId}`;
      });
      // The peer reads the key as it was, then waits for the row to make its shard; it stops before
      // writing, at its Idempotency-Key.
      const stall = await holdIdempotencyKey(fixture.sql, fixture.url, accountId, "peer-80");
      const peerCharge = peer.ledger.debit(accountId, { ...usage(keyId, "peer-80", 80), idempotencyKey: "peer-80" });
      await waitersOnLocks(observer, 1);
      const ownCharge = fixture.ledger.debit(accountId, usage(keyId, "own-80", 80));
      await waitersOnLocks(observer, 2);
      await limiting.release();
      await Bun.sleep(100);
      await stall.release();
      const outcomes = [await ownCharge, await peerCharge];
      // 1 spent before, 100 allowed: one of the two 80s fits.
      expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(1);
      expect(outcomes.find((outcome) => !outcome.ok)).toMatchObject({ reason: "key_limit", remaining: 19 });
      expect(await keySpend(fixture.sql, keyId)).toMatchObject({ spent_total: "81" });
    } finally {
      await observer.close();
      await fixture.close();
    }
  });

  test("a debit decided on the whole balance counts a shard made while it waited for the others", async () => {
    const fixture = await openPostgresFixture(server);
    const observer = new SQL(fixture.url, { max: 1 });
    const [second, third] = [await fixture.openPeer(), await fixture.openPeer()];
    try {
      const accountId = await fixture.createAccount(1600);
      const { keyId } = await fixture.createKey(accountId);
      expect(await second.ledger.debit(accountId, usage(keyId, "second-1"))).toMatchObject({ ok: true });
      const held = await holdShards(fixture.url, accountId);
      expect(await fixture.ledger.debit(accountId, usage(keyId, "first-1"))).toMatchObject({ ok: true });
      // Beyond what this process's shard and the row hold: decided on all shards, which waits for one held.
      const large = fixture.ledger.debit(accountId, usage(keyId, "large", 1590));
      await waitersOnLocks(observer, 1);
      // Meanwhile a third process makes its shard, with credits from the row.
      expect(await third.ledger.debit(accountId, usage(keyId, "third-1"))).toMatchObject({ ok: true });
      await held.release();
      expect(await large).toEqual({ ok: true, remaining: 7 });
      expect(await fixture.books(accountId)).toMatchObject({ balance: 7, usageCredits: 1593 });
    } finally {
      await observer.close();
      await fixture.close();
    }
  });

  test("a key limited while a process makes its shard is held to the limit by that process's next batch", async () => {
    const fixture = await openPostgresFixture(server);
    const observer = new SQL(fixture.url, { max: 1 });
    try {
      const accountId = await fixture.createAccount(10_000);
      const { keyId } = await fixture.createKey(accountId);
      // The first batch makes the process's shard, then stops at its Idempotency-Key.
      const firstStall = await holdIdempotencyKey(fixture.sql, fixture.url, accountId, "first");
      const first = fixture.ledger.debit(accountId, { ...usage(keyId, "first"), idempotencyKey: "first" });
      await waitersOnLocks(observer, 1);
      // A limit being set, as updateKey sets it, held uncommitted: it locks the shards there are, then
      // waits for the account's row, which the first batch holds.
      const limiting = holdLocks(fixture.url, async (tx) => {
        await lockAccountsWhole(tx, [accountId]);
        await tx`UPDATE api_keys SET credit_limit = 10, limit_per = 'total' WHERE id = ${keyId}`;
      });
      await waitersOnLocks(observer, 2);
      await firstStall.release();
      expect(await first).toMatchObject({ ok: true });
      const limited = await limiting;
      // The next batch, on the shard made meanwhile, stops at its Idempotency-Key if it gets that far.
      const secondStall = await holdIdempotencyKey(fixture.sql, fixture.url, accountId, "second");
      const second = fixture.ledger.debit(accountId, { ...usage(keyId, "second", 80), idempotencyKey: "second" });
      await waitersOnLocks(observer, 1);
      await limited.release();
      await secondStall.release();
      expect(await second).toMatchObject({ ok: false, reason: "key_limit", remaining: 9 });
      expect(await keySpend(fixture.sql, keyId)).toMatchObject({ spent_total: "1" });
    } finally {
      await observer.close();
      await fixture.close();
    }
  });

  test("a batch's debits of one account keep their order when the first needs the whole balance", async () => {
    const fixture = await openPostgresFixture(server);
    const peer = await fixture.openPeer();
    try {
      const accountId = await fixture.createAccount(100);
      const { keyId } = await fixture.createKey(accountId);
      await fixture.ledger.debit(accountId, usage(keyId, "a"));
      await peer.ledger.debit(accountId, usage(keyId, "b"));
      const shardsOf = () =>
        fixture.sql<{ shard: number; used_at: string }[]>`
          SELECT shard, used_at FROM credit_shards WHERE account_id = ${accountId} ORDER BY shard`;
      const before = await shardsOf();
      await Bun.sleep(5);
      // One batch: the first needs more than this process's shard and the row hold, the second does not.
      const [large, small] = await Promise.all([
        fixture.ledger.debit(accountId, usage(keyId, "large", 95)),
        fixture.ledger.debit(accountId, usage(keyId, "small", 2)),
      ]);
      expect([large, small]).toEqual([
        { ok: true, remaining: 3 },
        { ok: true, remaining: 1 },
      ]);
      // The shards it emptied stay idle, to be folded: only its own counts as used.
      const after = await shardsOf();
      const unchanged = after.filter((row) =>
        before.some((old) => old.shard === row.shard && old.used_at === row.used_at),
      );
      expect(unchanged).toHaveLength(1);
    } finally {
      await fixture.close();
    }
  });

  test("a debit refused on the whole balance names what leaves less, the balance or the key's limit", async () => {
    const fixture = await openPostgresFixture(server);
    const peer = await fixture.openPeer();
    try {
      const accountId = await fixture.createAccount(15);
      const { keyId } = await fixture.createKey(accountId, { limit: { credits: 12, per: "total" } });
      await fixture.ledger.debit(accountId, usage(keyId, "first"));
      await peer.ledger.debit(accountId, usage(keyId, "second"));
      // 13 left: 4 in this process's shard, 9 in the other's, none in the row; the key's limit leaves 10.
      await fixture.sql.begin(async (tx) => {
        await tx`UPDATE credit_shards SET credits = 0 WHERE account_id = ${accountId}`;
        await tx`UPDATE accounts SET balance = 13 WHERE id = ${accountId}`;
      });
      await fixture.ledger.debit(accountId, usage(keyId, "third", 0));
      const [mine] = await fixture.sql<{ shard: number }[]>`
        SELECT shard FROM credit_shards WHERE account_id = ${accountId} ORDER BY used_at DESC LIMIT 1`;
      await fixture.sql.begin(async (tx) => {
        await tx`UPDATE accounts SET balance = 0 WHERE id = ${accountId}`;
        await tx`UPDATE credit_shards SET credits = CASE WHEN shard = ${mine?.shard} THEN 4 ELSE 9 END
                 WHERE account_id = ${accountId}`;
      });
      expect(await fixture.ledger.debit(accountId, usage(keyId, "large", 50))).toMatchObject({
        ok: false,
        reason: "key_limit",
        remaining: 10,
      });
      expect(await fixture.books(accountId)).toMatchObject({ balance: 13, usageCredits: 2 });
    } finally {
      await fixture.close();
    }
  });

  test("the ledger's transactions run at READ COMMITTED whatever the database's default", async () => {
    const url = await server.createDatabase(`shards_isolation_${process.pid}`);
    const admin = new SQL(url, { max: 1 });
    await admin.unsafe(
      `ALTER DATABASE "shards_isolation_${process.pid}" SET default_transaction_isolation = 'repeatable read'`,
    );
    await admin.close();
    const sql = await openPostgres(url, { max: 1 });
    try {
      const [row] = await sql<{ level: string }[]>`SELECT current_setting('transaction_isolation') AS level`;
      expect(row?.level).toBe("read committed");
    } finally {
      await sql.close();
    }
  });

  test("a refund never takes a key's spend below zero, a charge made before keys counted spend included", async () => {
    const fixture = await openPostgresFixture(server);
    try {
      const accountId = await fixture.createAccount(100);
      const { keyId } = await fixture.createKey(accountId, { limit: { credits: 50, per: "total" } });
      await fixture.ledger.debit(accountId, usage(keyId, "old", 5));
      // As a charge from before a key's spend was counted: in the usage rows, not in the spend.
      await fixture.sql`UPDATE key_spend_shards SET spent_total = 0, spent_today = 0 WHERE key_id = ${keyId}`;
      await fixture.ledger.refund(accountId, "old");
      expect(await keySpend(fixture.sql, keyId)).toMatchObject({ spent_total: "0", spent_today: "0" });
      expect(await fixture.books(accountId)).toMatchObject({ balance: 100 });
    } finally {
      await fixture.close();
    }
  });

  test("api_key_totals has the columns of api_keys, in their order", async () => {
    const url = await server.createDatabase(`shards_view_${process.pid}`);
    const sql = await openPostgres(url, { max: 1 });
    try {
      const columns = (table: string) => sql<{ column_name: string }[]>`
        SELECT column_name FROM information_schema.columns WHERE table_name = ${table} ORDER BY ordinal_position`;
      const names = async (table: string) => (await columns(table)).map((row) => row.column_name);
      expect(await names("api_key_totals")).toEqual(await names("api_keys"));
    } finally {
      await sql.close();
    }
  });
});

function keySpend(sql: SQL, keyId: string) {
  return sql<{ spent_total: string; spent_today: string; spent_day: string; last_used_at: string }[]>`
    SELECT spent_total, spent_today, spent_day, last_used_at FROM api_key_totals WHERE id = ${keyId}`.then(
    (rows) => rows[0],
  );
}
