// `WEB_CONCURRENCY=2 bun run start`: two worker processes on one port under the supervisor, on both
// adapters (#14). Billing from both workers at once keeps the books exact, even across 402 edges; a
// worker SIGKILLed mid-load is restarted and no reported charge is lost; SIGTERM drains both; a grant
// and a revocation made by the operator CLI count in both workers' kept key checks at once. Which
// worker served each request is read from the request log (its `pid`), joined on the request id.

import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openBackend } from "@social/composition";
import { DEFAULT_WORLD, examples } from "@social/fixtures";
import { type PostgresServer, startPostgres } from "@social/store-postgres/testing";
import { type AccountObservations, auditDatabase } from "./ledger-audit.ts";
import { driveLoad, type LoadAccount, type LoadResult, loadUntilEnded, openAccountsWith, REQUEST_MIX } from "./load.ts";
import { type ServerProcess, spawnServer, worldCopy } from "./server-process.ts";
import { servedBy } from "./workers.ts";

const WORKERS = { WEB_CONCURRENCY: "2" };
const CONCURRENCY = 64;
/** Two accounts that never run dry and four that do, so debits from both workers cross the 402 edge. */
const GRANTS = [200_000, 200_000, 4_000, 4_000, 2_500, 2_500];

interface Database {
  /** What DATABASE_URL (or spawnServer) is given. */
  location: string;
  /** New accounts with active keys. */
  open(grants: readonly number[]): Promise<LoadAccount[]>;
  remove(): void;
}

let postgres: PostgresServer | undefined;
afterAll(() => postgres?.stop());

async function sqliteDatabase(): Promise<Database> {
  const world = worldCopy();
  return {
    location: world.databasePath,
    open: (grants) => accountsIn(world.databasePath, grants),
    remove: world.remove,
  };
}

async function postgresDatabase(name: string): Promise<Database> {
  postgres ??= await startPostgres();
  const url = await postgres.createDatabase(name);
  const backend = await openBackend(url, { max: 2 });
  await backend.buildWorld(DEFAULT_WORLD);
  await backend.close();
  return { location: url, open: (grants) => accountsIn(url, grants), remove: () => {} };
}

async function accountsIn(location: string, grants: readonly number[]): Promise<LoadAccount[]> {
  const backend = await openBackend(location.includes("://") ? location : `file:${location}`, { max: 2 });
  try {
    return await openAccountsWith(backend.accounts, grants);
  } finally {
    await backend.close();
  }
}

function merged(loads: readonly LoadResult[]): AccountObservations[] {
  const byAccount = new Map<string, AccountObservations>();
  for (const load of loads) {
    for (const { accountId, charges } of load.accounts) {
      byAccount.set(accountId, { accountId, charges: [...(byAccount.get(accountId)?.charges ?? []), ...charges] });
    }
  }
  return [...byAccount.values()];
}

function noBrokenAnswers(load: LoadResult): void {
  expect(load.problems).toEqual([]);
  expect([...load.statuses.keys()].filter((status) => status >= 500)).toEqual([]);
}

async function errorLines(server: ServerProcess): Promise<string[]> {
  return (await server.logs()).split("\n").filter((line) => line.includes('"level":"error"'));
}

const ADMIN = join(import.meta.dir, "../../../admin/src/main.ts");

/** The operator CLI, a process of its own, on `location`; throws with its output when it fails. */
function admin(location: string, args: string[]): void {
  const run = Bun.spawnSync([process.execPath, ADMIN, ...args], {
    env: { PATH: process.env.PATH ?? "", DATABASE_URL: location.includes("://") ? location : `file:${location}` },
  });
  if (run.exitCode !== 0) throw new Error(`admin ${args.join(" ")}: ${run.stdout}${run.stderr}`);
}

/**
 * `count` requests of `path` with `key`, each on a connection of its own, until every worker in `pids`
 * has answered some (the kernel spreads new connections between them), and at most 200 rounds.
 */
async function throughBoth(
  server: ServerProcess,
  key: string,
  pids: readonly number[],
  count = 10,
  path = `/v1/tweets/${examples.tweet_id}`,
): Promise<{ status: number; pid: number | undefined }[]> {
  const answers: { status: number; requestId: string }[] = [];
  for (let round = 0; round < 200; round++) {
    for (let i = 0; i < count; i++) {
      const response = await fetch(`${server.url}${path}`, {
        headers: { authorization: `Bearer ${key}`, connection: "close" },
      });
      await response.arrayBuffer();
      answers.push({ status: response.status, requestId: response.headers.get("x-request-id") ?? "" });
    }
    const served = await servedBy(
      server,
      answers.map((answer) => answer.requestId),
    );
    const seen = answers.map((answer) => ({ status: answer.status, pid: served.get(answer.requestId) }));
    if (count === 1 || pids.every((pid) => seen.some((answer) => answer.pid === pid))) return seen;
  }
  throw new Error("the requests never reached every worker");
}

for (const adapter of ["sqlite", "postgres"] as const) {
  describe(`two workers on ${adapter}`, () => {
    let database: Database;
    beforeAll(async () => {
      database = adapter === "sqlite" ? await sqliteDatabase() : await postgresDatabase("workers");
    }, 60_000);
    afterAll(() => database?.remove());

    it(`bill ${CONCURRENCY} clients over shared accounts from both processes, across the 402 edge, to the credit`, async () => {
      const accounts = await database.open(GRANTS);
      const server = await spawnServer(database.location, WORKERS);
      try {
        const pids = server.servingPids();
        expect(pids.length).toBe(2);
        const load = await driveLoad(server.url, accounts, {
          requests: 3000,
          concurrency: CONCURRENCY,
          deadline: Date.now() + 30_000,
          requestTimeoutMs: 15_000,
        });
        noBrokenAnswers(load);
        expect(load.unanswered).toBe(0);
        expect(load.answers.length).toBe(3000);
        expect(load.refusedAccounts.size).toBeGreaterThanOrEqual(4);
        expect(new Set(load.answers.map((answer) => answer.path)).size).toBe(REQUEST_MIX.length);

        // Both workers served, and both refused a poor account for want of credits.
        const served = await servedBy(
          server,
          load.answers.map((answer) => answer.requestId),
        );
        const pidOf = (requestId: string) => served.get(requestId);
        expect(new Set(load.answers.map((answer) => pidOf(answer.requestId)))).toEqual(new Set(pids));
        const refusing = load.answers.filter((answer) => answer.status === 402).map((a) => pidOf(a.requestId));
        expect(new Set(refusing)).toEqual(new Set(pids));

        expect(await auditDatabase(database.location, load.accounts)).toEqual({ problems: [], unanswered: [] });
        expect(await errorLines(server)).toEqual([]);
      } finally {
        await server.stop();
      }
      expect(server.exitCode()).toBe(0);
    }, 90_000);

    it("restart a worker SIGKILLed mid-load, lose no reported charge, and drain both on SIGTERM", async () => {
      const accounts = await database.open([1_000_000, 1_000_000, 3_000, 3_000]);
      const server = await spawnServer(database.location, WORKERS);
      // A failed expectation must not leave the supervisor and its workers running.
      try {
        const [victim, survivor] = server.servingPids() as [number, number];

        // 1. Kill one worker once answers flow from both; the load goes on through the other.
        let killed = false;
        const killedLoad = await driveLoad(server.url, accounts, {
          requests: 2000,
          concurrency: CONCURRENCY,
          deadline: Date.now() + 30_000,
          requestTimeoutMs: 15_000,
          onAnswer: (answered) => {
            if (answered < 400 || killed) return;
            killed = true;
            process.kill(victim, "SIGKILL");
          },
        });
        expect(killed).toBe(true);
        noBrokenAnswers(killedLoad);
        // Only requests in flight on the killed worker lost their answers.
        expect(killedLoad.unanswered).toBeLessThanOrEqual(CONCURRENCY);

        // 2. The supervisor starts a new worker in its place, which serves and bills.
        const deadline = Date.now() + 20_000;
        while (!(await server.logs()).includes("serves again") && Date.now() < deadline) await Bun.sleep(100);
        const replacement = server.servingPids().find((pid) => pid !== survivor);
        expect(replacement).toBeDefined();
        expect(replacement).not.toBe(victim);
        const afterRestart = await driveLoad(server.url, accounts, {
          requests: 1000,
          concurrency: CONCURRENCY,
          deadline: Date.now() + 30_000,
          requestTimeoutMs: 15_000,
          newConnections: true,
        });
        noBrokenAnswers(afterRestart);
        expect(afterRestart.unanswered).toBe(0);
        const served = await servedBy(
          server,
          afterRestart.answers.map((answer) => answer.requestId),
        );
        expect(new Set(afterRestart.answers.map((answer) => served.get(answer.requestId)))).toEqual(
          new Set([survivor, replacement]),
        );

        // The books so far: every reported charge is there; the only usage rows without an answer are
        // requests that were in flight on the killed worker. The client cannot count those: fetch sends a
        // request again, unseen, when its pooled connection was reset, so the bound is the requests that
        // can be in flight at once.
        const allowed = { unansweredAllowed: CONCURRENCY };
        const beforeDrain = await auditDatabase(database.location, merged([killedLoad, afterRestart]), allowed);
        expect(beforeDrain.problems).toEqual([]);

        // 3. SIGTERM mid-load: both workers finish what they took, and the supervisor exits 0.
        const drained = await loadUntilEnded(server.url, accounts, {
          concurrency: CONCURRENCY,
          answers: 300,
          end: () => server.stop(),
        });
        noBrokenAnswers(drained);
        expect(server.exitCode()).toBe(0);

        // A graceful stop answers everything it charged: it adds no usage row without an answer.
        const audit = await auditDatabase(database.location, merged([killedLoad, afterRestart, drained]), allowed);
        expect(audit.problems).toEqual([]);
        expect(audit.unanswered).toEqual(beforeDrain.unanswered);
      } finally {
        if (server.running()) await server.stop();
      }
    }, 120_000);

    it("count a grant and a revocation from the operator CLI in both workers' next requests", async () => {
      const [account] = await database.open([1]);
      if (!account) throw new Error("an account");
      const server = await spawnServer(database.location, WORKERS);
      try {
        const pids = server.servingPids();
        // Both workers keep the key's check: the account's one credit is spent, and both refuse.
        expect((await throughBoth(server, account.key, pids, 1)).map((answer) => answer.status)).toContain(200);
        const spent = await throughBoth(server, account.key, pids);
        expect(new Set(spent.map((answer) => answer.status))).toEqual(new Set([402]));

        admin(database.location, ["credits", "grant", account.accountId, "100"]);
        const granted = await throughBoth(server, account.key, pids);
        expect(new Set(granted.map((answer) => answer.status))).toEqual(new Set([200]));

        admin(database.location, ["keys", "revoke", account.key]);
        const revoked = await throughBoth(server, account.key, pids, 10, "/v1/account");
        expect(new Set(revoked.map((answer) => answer.status))).toEqual(new Set([401]));
      } finally {
        await server.stop();
      }
    }, 60_000);
  });
}

describe("a worker that keeps dying before it serves", () => {
  it("is restarted with growing delays, then the supervisor stops every worker and exits 1", async () => {
    const world = worldCopy();
    let server: Awaited<ReturnType<typeof spawnServer>> | undefined;
    try {
      server = await spawnServer(world.databasePath, WORKERS);
      const [victim] = server.servingPids() as [number, number];
      // What a replacement will find at the database's path: not a database, so it dies at start.
      const garbage = join(world.dir, "garbage.db");
      writeFileSync(garbage, "not a database, and long enough to be read as a header ".repeat(10));
      renameSync(garbage, world.databasePath);
      process.kill(victim, "SIGKILL");

      const deadline = Date.now() + 30_000;
      while (server.running() && Date.now() < deadline) await Bun.sleep(100);
      expect(server.exitCode()).toBe(1);
      const said = (await server.logs()).split("\n").filter((line) => line.startsWith("supervisor: "));
      // The death, then four failed starts, each waited out twice as long; the fifth failure ends it.
      const delays = said
        .filter((line) => line.includes("restarting it in"))
        .map((line) => line.match(/in (\d+) ms/)?.[1]);
      expect(delays).toEqual(["100", "200", "400", "800", "1600"]);
      expect(said.at(-1)).toContain("workers keep dying before they serve (5 times in a row): stopping");
    } finally {
      if (server?.running()) await server.stop();
      world.remove();
    }
  }, 60_000);
});
