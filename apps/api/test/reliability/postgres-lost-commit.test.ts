// The one charge a client could not hear about on PostgreSQL: a debit whose COMMIT reached the server
// while the reply was lost with the connection. The client is answered 503, uncharged, and so the
// ledger takes the charge back by itself once the database answers again (a refund, which does nothing
// for a debit that never committed). Made to happen on purpose: a proxy between the API and PostgreSQL
// lets one COMMIT through, then drops its reply and closes the connection.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { openBackend } from "@social/composition";
import { DEFAULT_WORLD, examples } from "@social/fixtures";
import { type PostgresServer, startPostgres } from "@social/store-postgres/testing";
import { type CommitReplyDropper, commitReplyDropper } from "@social/store-postgres/testing/commit-reply-dropper";
import { readAnswer } from "./answer.ts";
import { auditDatabase } from "./ledger-audit.ts";
import { openAccountsWith } from "./load.ts";
import { type ServerProcess, spawnServer } from "./server-process.ts";

let postgres: PostgresServer;
let proxy: CommitReplyDropper;
let api: ServerProcess;
let databaseUrl: string;

beforeAll(async () => {
  postgres = await startPostgres();
  databaseUrl = await postgres.createDatabase("lost_commit");
  const backend = await openBackend(databaseUrl, { max: 2 });
  await backend.buildWorld(DEFAULT_WORLD);
  await backend.close();
  const port = Number(new URL(databaseUrl).port);
  proxy = await commitReplyDropper(port);
  api = await spawnServer(databaseUrl.replace(`:${port}/`, `:${proxy.port}/`));
}, 60_000);

afterAll(async () => {
  await api?.stop();
  proxy?.stop();
  postgres?.stop();
});

describe("a debit whose COMMIT reply is lost", () => {
  it("is answered 503 uncharged, and the charge the server kept is refunded once it answers again", async () => {
    const backend = await openBackend(databaseUrl, { max: 1 });
    const [account] = await openAccountsWith(backend.accounts, [1000]);
    if (account === undefined) throw new Error("no account");
    const lookup = async () =>
      readAnswer(
        await fetch(`${api.url}/v1/tweets/${examples.tweet_id}`, {
          headers: { authorization: `Bearer ${account.key}` },
        }),
      );

    const before = await lookup();
    proxy.loseNextCommitReply();
    const lost = await lookup();
    const after = await lookup();
    expect(proxy.dropped()).toBe(true);
    expect([before.status, before.charged]).toEqual([200, 1]);
    expect([lost.status, lost.errorCode, lost.charged]).toEqual([503, "service_unavailable", 0]);
    expect([after.status, after.charged]).toEqual([200, 1]);

    // The COMMIT did reach the server: the request is in the ledger, and then given back.
    const charges = [before, lost, after].map(({ requestId, charged }) => ({ requestId, charged }));
    let audit = await auditDatabase(databaseUrl, [{ accountId: account.accountId, charges }]);
    for (let waited = 0; audit.problems.length > 0 && waited < 5_000; waited += 100) {
      await Bun.sleep(100);
      audit = await auditDatabase(databaseUrl, [{ accountId: account.accountId, charges }]);
    }
    expect(audit).toEqual({ problems: [], unanswered: [] });
    expect(await backend.ledger.balance(account.accountId)).toBe(998);
    await backend.close();
  }, 30_000);
});
