// The Sessions conformance suite (@social/conformance) on SQLite: a fresh database file per test, reached
// through two connections as two processes would.
import { type SessionsFixture, sessionsConformance } from "@social/conformance";
import { SqliteAccounts, SqliteSessions } from "../src/index.ts";
import { twoSqliteConnections } from "./two-connections.ts";

sessionsConformance("SQLite", async (): Promise<SessionsFixture> => {
  const { db, peerDb, close } = await twoSqliteConnections("sessions");
  return {
    sessions: new SqliteSessions(db),
    peer: new SqliteSessions(peerDb),
    accountId: (await new SqliteAccounts(db).openAccount("Ada")).account.id,
    close: async () => close(),
  };
});
