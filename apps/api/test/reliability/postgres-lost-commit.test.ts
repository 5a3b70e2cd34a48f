// The one charge a client could not hear about on PostgreSQL: a debit whose COMMIT reached the server
// while the reply was lost with the connection. The client is answered 503, uncharged, and so the
// ledger takes the charge back by itself once the database answers again (a refund, which does nothing
// for a debit that never committed). Made to happen on purpose: a proxy between the API and PostgreSQL
// lets one COMMIT through, then drops its reply and closes the connection.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { openBackend } from "@social/composition";
import { DEFAULT_WORLD, examples } from "@social/fixtures";
import { type PostgresServer, startPostgres } from "@social/store-postgres/testing";
import type { Socket, TCPSocketListener } from "bun";
import { freePort } from "../harness.ts";
import { readAnswer } from "./answer.ts";
import { auditDatabase } from "./ledger-audit.ts";
import { openAccountsWith } from "./load.ts";
import { type ServerProcess, spawnServer } from "./server-process.ts";

/** A connection through the proxy: the client's side and the server's. */
interface Link {
  client: Socket<Link>;
  server?: Socket<Link>;
  early: Uint8Array[];
  /** The next bytes from the server are the reply of the COMMIT let through: they are dropped. */
  dropReply: boolean;
}

/** Forwards PostgreSQL's protocol both ways; `loseNextCommitReply()` arms it for one COMMIT. */
async function commitReplyDropper(serverPort: number): Promise<{
  port: number;
  loseNextCommitReply(): void;
  dropped(): boolean;
  stop(): void;
}> {
  let armed = false;
  let dropped = false;
  const port = await freePort();
  const listener: TCPSocketListener<Link> = Bun.listen<Link>({
    hostname: "127.0.0.1",
    port,
    socket: {
      async open(client) {
        const link: Link = { client, early: [], dropReply: false };
        client.data = link;
        link.server = await Bun.connect<Link>({
          hostname: "127.0.0.1",
          port: serverPort,
          data: link,
          socket: {
            data(_server, chunk) {
              if (!link.dropReply) {
                link.client.write(chunk);
                return;
              }
              dropped = true;
              link.server?.end();
              link.client.end();
            },
            close: () => {
              link.client.end();
            },
          },
        });
        for (const chunk of link.early) link.server.write(chunk);
      },
      data(client, chunk) {
        const link = client.data;
        if (armed && Buffer.from(chunk).includes("COMMIT")) {
          armed = false;
          link.dropReply = true;
        }
        if (link.server) link.server.write(chunk);
        else link.early.push(chunk);
      },
      close: (client) => {
        client.data.server?.end();
      },
    },
  });
  return {
    port,
    loseNextCommitReply: () => {
      armed = true;
    },
    dropped: () => dropped,
    stop: () => listener.stop(true),
  };
}

let postgres: PostgresServer;
let proxy: Awaited<ReturnType<typeof commitReplyDropper>>;
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
