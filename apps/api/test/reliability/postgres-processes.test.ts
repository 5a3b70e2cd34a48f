// Two API processes on one PostgreSQL database, billing the same accounts at once (#13): each process
// batches its own debits, so the only thing keeping a balance true is the database (a batch locks its
// accounts before it reads their balances). 64 clients split across both processes share a handful of
// accounts, most granted too little to last, so concurrent debits from both processes keep crossing the
// 402 edge; one key has a limit of its own below its account's balance, and retries with one
// Idempotency-Key come after an answer and at the same time as the first request (#16). Then the books are read back: for every account, grants = balance + the charges reported to
// clients, every usage row is a request some client got an answer for, and no answer broke the contract
// (no 5xx, no 402 for a request the balance covered, see answer.ts).
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { type Backend, openBackend } from "@social/composition";
import { DEFAULT_WORLD } from "@social/fixtures";
import { type PostgresServer, startPostgres } from "@social/store-postgres/testing";
import { auditDatabase, auditKeyLimits } from "./ledger-audit.ts";
import { driveLoad, everyFourthKeyLimited, type LoadAccount, openAccountsWith, REQUEST_MIX } from "./load.ts";
import { type ServerProcess, spawnServer } from "./server-process.ts";

const REQUESTS = 3000;
const CONCURRENCY = 64;
/**
 * Two accounts that never run dry and four that do: at about 25 credits a request on average, each
 * poor account pays for roughly 150 of its 500 requests, then keeps getting 402 for dear requests
 * while cheap ones still fit, both processes debiting it at once right at the edge.
 */
const GRANTS = [200_000, 200_000, 4_000, 4_000, 2_500, 2_500];

let postgres: PostgresServer;
let databaseUrl: string;
let backend: Backend;
let accounts: LoadAccount[];
const servers: ServerProcess[] = [];

beforeAll(async () => {
  postgres = await startPostgres();
  databaseUrl = await postgres.createDatabase("processes");
  backend = await openBackend(databaseUrl, { max: 4 });
  await backend.buildWorld(DEFAULT_WORLD);
  accounts = await openAccountsWith(backend.accounts, GRANTS, everyFourthKeyLimited(GRANTS));
  servers.push(...(await Promise.all([spawnServer(databaseUrl), spawnServer(databaseUrl)])));
}, 60_000);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await backend?.close();
  postgres?.stop();
});

describe("two API processes on one PostgreSQL database", () => {
  it(`${REQUESTS} mixed requests from ${CONCURRENCY} clients over both, on shared accounts: no charge lost, doubled or invented`, async () => {
    const load = await driveLoad(
      servers.map((server) => server.url),
      accounts,
      {
        requests: REQUESTS,
        concurrency: CONCURRENCY,
        deadline: Date.now() + 30_000,
        requestTimeoutMs: 15_000,
        pairs: true,
      },
    );
    const seconds = load.seconds.toFixed(1);
    console.log(`${load.answers.length} answers in ${seconds} s: ${JSON.stringify(Object.fromEntries(load.statuses))}`);

    expect(load.problems).toEqual([]);
    expect(load.unanswered).toBe(0);
    // A pair sent at once with one Idempotency-Key is one answer, or two when the first failed.
    expect(load.answers.length).toBeGreaterThanOrEqual(REQUESTS);
    expect([...load.statuses.keys()].filter((status) => status >= 500)).toEqual([]);
    expect(load.statuses.get(200) ?? 0).toBeGreaterThan(0);
    // The run did cross the edge: the poor accounts were refused, and not only by the process that
    // charged them last (402s and 200s from both processes for the same account).
    expect(load.refusedAccounts.size).toBeGreaterThanOrEqual(4);
    for (const { accountId } of accounts) {
      const served = new Set(load.answers.filter((a) => a.accountId === accountId).map((a) => a.server));
      expect([accountId, [...served].sort()]).toEqual([accountId, [0, 1]]);
    }
    const refusedByBoth = new Set(load.answers.filter((a) => a.status === 402).map((a) => a.server));
    expect([...refusedByBoth].sort()).toEqual([0, 1]);
    // Every path of the mix was answered at least once, so the costs really were mixed.
    expect(new Set(load.answers.map((a) => a.path)).size).toBe(REQUEST_MIX.length);

    // The books, from the database's own tables: every reported charge is there under its request id,
    // nothing else is, and grants = balance + usage = balance + what clients were told.
    const audit = await auditDatabase(databaseUrl, load.accounts);
    expect(audit).toEqual({ problems: [], unanswered: [] });
    // The limited key met its limit from both processes, and never spent past it.
    expect(load.keyLimitRefusals).toBeGreaterThan(0);
    expect(await auditKeyLimits(databaseUrl)).toEqual([]);
    // And through the Ledger port, as a third process sees it.
    for (const [index, { accountId, charges }] of load.accounts.entries()) {
      const reported = charges.reduce((sum, charge) => sum + charge.charged, 0);
      expect([accountId, await backend.ledger.balance(accountId)]).toEqual([
        accountId,
        (GRANTS[index] ?? 0) - reported,
      ]);
    }

    // Neither process logged an error: a 402 race or a lock conflict is not an incident.
    for (const server of servers) {
      expect(server.running()).toBe(true);
      const errors = (await server.logs()).split("\n").filter((line) => line.includes('"level":"error"'));
      expect(errors).toEqual([]);
    }
  }, 60_000);
});
