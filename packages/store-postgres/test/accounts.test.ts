// The Accounts conformance suite (@social/conformance) on PostgreSQL, on a real server of this test file's
// own, a fresh database per test; then what only PostgreSQL can meet, a server out of reach, which every
// method answers as service_unavailable.
import { afterAll, beforeAll, expect, spyOn, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { type AccountsFixture, accountsConformance } from "@social/conformance";
import { type Accounts, ApiError, answeringOutages, BALANCE_REFUSAL, KEY_LIMIT_REFUSAL } from "@social/core";
import { hashApiKeySync } from "@social/store-common";
import { SQL } from "bun";
import { PostgresAccounts } from "../src/accounts/postgres-accounts.ts";
import { COUNT_REFUSED } from "../src/accounts/request-history.ts";
import { PostgresLedger } from "../src/ledger/postgres-ledger.ts";
import { PostgresRequestLog } from "../src/ledger/request-log.ts";
import { isDatabaseOutage } from "../src/outage.ts";
import { type PostgresServer, startPostgres } from "../testing/pg-server.ts";
import { twoPostgresPools } from "./two-pools.ts";

let server: PostgresServer;

beforeAll(async () => {
  server = await startPostgres();
});

afterAll(() => server.stop());

async function openPostgresFixture(): Promise<AccountsFixture> {
  const { sql, peerSql, close } = await twoPostgresPools(server, "accounts");
  return {
    accounts: new PostgresAccounts(sql),
    peer: new PostgresAccounts(peerSql),
    ledger: (now) => new PostgresLedger(sql, { now }),
    requestLog: () => new PostgresRequestLog(sql),
    async grants(accountId) {
      const rows = await sql<{ credits: string; reason: string }[]>`
        SELECT credits, reason FROM grants WHERE account_id = ${accountId} ORDER BY id`;
      return rows.map((row) => ({ credits: Number(row.credits), reason: row.reason }));
    },
    async storedKeys() {
      const [row] = await sql<
        { text: string }[]
      >`SELECT coalesce(string_agg(k::text, ' '), '') AS text FROM api_keys k`;
      return row?.text ?? "";
    },
    async insertKeyWithPrefix(accountId, prefix) {
      await sql`INSERT INTO api_keys (id, account_id, name, prefix, hash, created_at)
                VALUES (${`key_${randomUUID()}`}, ${accountId}, 'twin', ${prefix}, ${hashApiKeySync(randomUUID())}, 0)`;
    },
    close,
  };
}

accountsConformance("PostgreSQL", openPostgresFixture);

test("PostgreSQL: every Accounts method on a pool that cannot reach the server is service_unavailable", async () => {
  const closed = new SQL(await server.createDatabase(`accounts_${process.pid}_closed`), { max: 1 });
  await closed.close();
  const accounts = answeringOutages(new PostgresAccounts(closed), isDatabaseOutage);
  const calls: { [Method in keyof Accounts]: () => Promise<unknown> } = {
    account: () => accounts.account("acct_any"),
    openAccount: () => accounts.openAccount("Bob"),
    accountForIdentity: () => accounts.accountForIdentity("https://id.example", "bob", "Bob"),
    grantCredits: () => accounts.grantCredits("acct_any", 5),
    createKey: () => accounts.createKey("acct_any", "second"),
    key: () => accounts.key("key_any"),
    listKeys: () => accounts.listKeys("acct_any"),
    updateKey: () => accounts.updateKey("key_any", { name: "renamed" }),
    revokeKey: () => accounts.revokeKey("key_any"),
    dailyUsage: () => accounts.dailyUsage("acct_any", 30),
    usageSummary: () => accounts.usageSummary("acct_any", { from: 0, to: 1, groupBy: "day" }),
    recentRequests: () => accounts.recentRequests("acct_any", 10),
    requestLog: () => accounts.requestLog("acct_any", { since: 0, status: "all", limit: 10 }),
    countRefused: () => accounts.countRefused("acct_any", BALANCE_REFUSAL, 0, 10),
    grants: () => accounts.grants("acct_any", 10),
    lastTopUp: () => accounts.lastTopUp("acct_any"),
    setLowBalanceWarning: () => accounts.setLowBalanceWarning("acct_any", 10),
    secret: () => accounts.secret("session_secret"),
  };
  const logged = spyOn(console, "error").mockImplementation(() => {});
  try {
    for (const [method, call] of Object.entries(calls)) {
      const error = await call().then(
        () => new Error(`${method} answered`),
        (rejection: unknown) => rejection,
      );
      expect(error, method).toBeInstanceOf(ApiError);
      expect(error, method).toMatchObject({ code: "service_unavailable", status: 503 });
    }
  } finally {
    logged.mockRestore();
  }
});

test("PostgreSQL: the banner's count of one kind of 402 is read along an index that holds its error code", async () => {
  // An account flooded with key-limit 402s: filtered on error_code after the index, the count of the
  // balance's would read every one of them on every page view.
  const { sql, close } = await twoPostgresPools(server, "refusal_plan");
  try {
    await sql`INSERT INTO request_log (request_id, account_id, key_id, endpoint, status, error_code, duration_ms, created_at)
      SELECT 'req_' || n, 'acct_flooded', 'key_a', 'tweet', ${KEY_LIMIT_REFUSAL.status}, ${KEY_LIMIT_REFUSAL.errorCode}, 1, n
      FROM generate_series(1, 20000) n`;
    await sql`ANALYZE request_log`;
    const bindings = ["acct_flooded", BALANCE_REFUSAL.status, BALANCE_REFUSAL.errorCode, 0, 1000];
    const plan = (await sql.unsafe<{ "QUERY PLAN": string }[]>(`EXPLAIN ${COUNT_REFUSED}`, bindings))
      .map((line) => line["QUERY PLAN"])
      .join("\n");
    expect(plan).toContain("Index Only Scan using request_log_account_refusal on request_log");
    expect(plan).toMatch(/Index Cond: \(.*error_code = /);
  } finally {
    await close();
  }
});
