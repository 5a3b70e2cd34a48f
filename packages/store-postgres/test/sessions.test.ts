// The Sessions conformance suite (@social/conformance) on PostgreSQL, on a real server of this test file's
// own, a fresh database per test; then what only PostgreSQL can meet, a server out of reach, which every
// method answers as service_unavailable.
import { afterAll, beforeAll, expect, spyOn, test } from "bun:test";
import { type SessionsFixture, sessionsConformance } from "@social/conformance";
import { ApiError, answeringOutages, type Sessions } from "@social/core";
import { SQL } from "bun";
import { PostgresAccounts } from "../src/accounts/postgres-accounts.ts";
import { isDatabaseOutage } from "../src/outage.ts";
import { PostgresSessions } from "../src/sessions/postgres-sessions.ts";
import { type PostgresServer, startPostgres } from "../testing/pg-server.ts";
import { twoPostgresPools } from "./two-pools.ts";

let server: PostgresServer;

beforeAll(async () => {
  server = await startPostgres();
});

afterAll(() => server.stop());

async function openPostgresFixture(): Promise<SessionsFixture> {
  const { sql, peerSql, close } = await twoPostgresPools(server, "sessions");
  return {
    sessions: new PostgresSessions(sql),
    peer: new PostgresSessions(peerSql),
    accountId: (await new PostgresAccounts(sql).openAccount("Ada")).account.id,
    close,
  };
}

sessionsConformance("PostgreSQL", openPostgresFixture);

test("PostgreSQL: every Sessions method on a pool that cannot reach the server is service_unavailable", async () => {
  const closed = new SQL(await server.createDatabase(`sessions_${process.pid}_closed`), { max: 1 });
  await closed.close();
  const sessions = answeringOutages(new PostgresSessions(closed), isDatabaseOutage);
  const checks = { state: "s", nonce: "n", codeVerifier: "v" };
  const calls: { [Method in keyof Sessions]: () => Promise<unknown> } = {
    createSession: () => sessions.createSession("s1", { accountId: "acct_any", csrfToken: "t" }, 2_000, 1_000),
    findSession: () => sessions.findSession("s1", 1_000),
    deleteSession: () => sessions.deleteSession("s1"),
    saveSignIn: () => sessions.saveSignIn("a1", checks, 2_000, 1_000),
    takeSignIn: () => sessions.takeSignIn("a1", 1_000),
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
