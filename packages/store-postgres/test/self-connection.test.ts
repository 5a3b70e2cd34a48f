// PostgreSQL on a port of the kernel's ephemeral range, stopped while the adapter is under load: with
// nothing listening there, a connection to 127.0.0.1:P can be given P as its own port and reach itself
// (TCP simultaneous open), and a socket left open that way keeps PostgreSQL from starting again on P
// ("could not create any TCP/IP sockets"). The adapter never keeps such a connection: its probe closes
// one at once, and while the server is away its pool opens no socket but the probe's.
import { afterAll, beforeAll, expect, spyOn, test } from "bun:test";
import { readFileSync } from "node:fs";
import { connect, createServer, type Socket, type TcpNetConnectOpts } from "node:net";
import { ApiError, answeringOutages } from "@social/core";
import { freePort, selfConnectablePort } from "@social/testing";
import type { SQL } from "bun";
import { openPostgres } from "../src/database.ts";
import { PostgresLedger } from "../src/ledger/postgres-ledger.ts";
import { isDatabaseOutage } from "../src/outage.ts";
import { isSelfConnected, probeServer, ServerUnreachable } from "../src/server-probe.ts";
import { PostgresStore } from "../src/store/postgres-store.ts";
import { type PostgresServer, startPostgres } from "../testing/pg-server.ts";

const CLIENTS = 32;
/**
 * Requests refused while PostgreSQL is down. Without the probe they meant connection attempts enough
 * to pass every port of the range, in the kernel's steps of a few ports, many times over (one reached
 * itself within two seconds); with it, a probe every quarter of a second.
 */
const REFUSALS = 200_000;
/** How long the outage lasts when the machine is too busy to refuse that many sooner. */
const OUTAGE_MS = 10_000;
const RECOVERY_MS = 20_000;

/** The sockets of this machine whose own port is `port`, any state (/proc/net/tcp, Linux). */
function socketsOn(port: number): { local: string; remote: string }[] {
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  return readFileSync("/proc/net/tcp", "utf8")
    .split("\n")
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter(([, local]) => local?.endsWith(`:${hex}`))
    .map(([, local, remote]) => ({ local: local as string, remote: remote as string }));
}

function connected(options: TcpNetConnectOpts): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(options);
    socket.once("connect", () => resolve(socket));
    socket.once("error", reject);
  });
}

test("a socket connected to itself is told apart from one connected to a server", async () => {
  const port = await freePort();
  const itself = await connected({ host: "127.0.0.1", port, localAddress: "127.0.0.1", localPort: port });
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const other = await connected({ host: "127.0.0.1", port: (server.address() as { port: number }).port });
  try {
    expect([isSelfConnected(itself), isSelfConnected(other)]).toEqual([true, false]);
  } finally {
    itself.resetAndDestroy();
    other.destroy();
    server.close();
  }
});

test("the probe closes a connection that reached itself at once, leaving the port free for the server", async () => {
  const port = await freePort();
  const refused = await probeServer({ host: "127.0.0.1", port, localAddress: "127.0.0.1", localPort: port }).then(
    () => "a server answered",
    (error: unknown) => error,
  );
  expect(refused).toBeInstanceOf(ServerUnreachable);
  expect(refused).toMatchObject({ message: expect.stringContaining("reached itself") });
  // Not even in TIME_WAIT, where a closed connection would hold the port.
  expect(socketsOn(port)).toEqual([]);
});

let server: PostgresServer;
let sql: SQL;
beforeAll(async () => {
  server = await startPostgres({ port: await selfConnectablePort() });
  sql = await openPostgres(await server.createDatabase("selfconnect"));
}, 60_000);
afterAll(async () => {
  await sql?.close();
  server?.stop();
});

test("PostgreSQL stopped under load starts again on its ephemeral port while the adapter runs, and the adapter serves again", async () => {
  const port = Number(new URL(server.url).port);
  // As the composition hands it out: an outage answers service_unavailable.
  const store = answeringOutages(new PostgresStore(sql), isDatabaseOutage);
  // The ledger listens for key changes on a connection of its own, which Bun reconnects by itself.
  new PostgresLedger(sql);
  const seen = { answered: 0, refused: 0, other: [] as string[] };
  // Each refusal is also a line of the operator's log: hundreds of thousands of them here.
  const logged = spyOn(console, "error").mockImplementation(() => {});
  let sending = true;
  const clients = Array.from({ length: CLIENTS }, async () => {
    while (sending) {
      await store.tweetsByIds(["1"]).then(
        () => {
          seen.answered += 1;
        },
        (error: unknown) => {
          if (error instanceof ApiError && error.code === "service_unavailable") seen.refused += 1;
          else seen.other.push(String(error));
        },
      );
    }
  });
  /** Resolves once `condition` holds; fails at once when a connection reached itself on the port. */
  const until = async (condition: () => boolean, ms: number, what: string) => {
    const deadline = performance.now() + ms;
    while (!condition()) {
      if (socketsOn(port).some(({ local, remote }) => local === remote))
        throw new Error(`a connection to port ${port} reached itself and holds the port`);
      if (performance.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
      await Bun.sleep(20);
    }
  };
  try {
    await until(() => seen.answered > 0, RECOVERY_MS, "answers before the stop");
    server.kill();
    const refusedBefore = seen.refused;
    const stoppedAt = performance.now();
    // However fast the machine refuses: the outage ends after REFUSALS or OUTAGE_MS, whichever comes first.
    const outageOver = () => seen.refused - refusedBefore >= REFUSALS || performance.now() - stoppedAt >= OUTAGE_MS;
    await until(outageOver, OUTAGE_MS + RECOVERY_MS, "the outage's end");
    expect(seen.refused).toBeGreaterThan(refusedBefore);
    // Throws when the port is taken: "could not create any TCP/IP sockets".
    server.restart();
    const answeredBefore = seen.answered;
    await until(() => seen.answered > answeredBefore, RECOVERY_MS, "answers after the restart");
  } finally {
    sending = false;
    await Promise.all(clients);
    logged.mockRestore();
  }
  expect(seen.other.slice(0, 3)).toEqual([]);
}, 60_000);
