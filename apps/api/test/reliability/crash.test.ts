// Crash safety: SIGKILL the server process in the middle of a charged load, restart it on the same
// database, and audit. A debit and its usage row are one transaction and no response reports a charge
// before its COMMIT, so after any number of kills: every reported charge is in the ledger under its
// request id, grants = balance + usage for every account, and the only usage rows without an answer
// are requests that were in flight at a kill (their answers died with the process). A graceful stop
// (SIGTERM) in the middle of the load answers every request it charged, and no request with a 5xx.
import { afterAll, describe, expect, it } from "bun:test";
import { type AccountObservations, auditLedger } from "./ledger-audit.ts";
import { driveLoad, type LoadAccount, loadUntilEnded, openAccounts } from "./load.ts";
import { spawnServer, worldCopy } from "./server-process.ts";

/** How each load ends; the kills are the point, the graceful stop between them checks draining. */
const ENDINGS = ["SIGKILL", "SIGTERM", "SIGKILL", "SIGKILL"] as const;
type Ending = (typeof ENDINGS)[number];
const CONCURRENCY = 32;
/** Answers to wait for before each kill: enough that batches are committing back to back. */
const ANSWERS_BEFORE_KILL = 400;

const world = worldCopy();
afterAll(() => world.remove());

/** One load against a fresh server process, ended by `ending` once `ANSWERS_BEFORE_KILL` are in. */
async function loadUntil(ending: Ending, accounts: readonly LoadAccount[]) {
  const server = await spawnServer(world.databasePath);
  return loadUntilEnded(server.url, accounts, {
    concurrency: CONCURRENCY,
    answers: ANSWERS_BEFORE_KILL,
    end: () => (ending === "SIGKILL" ? server.kill() : server.stop()),
  });
}

function merge(into: Map<string, AccountObservations>, observed: readonly AccountObservations[]): void {
  for (const { accountId, charges } of observed) {
    const known = into.get(accountId);
    into.set(accountId, { accountId, charges: [...(known?.charges ?? []), ...charges] });
  }
}

describe("crash safety", () => {
  it(`${ENDINGS.join(", ")} mid-load, each followed by a restart on the same database: no charge lost or invented`, async () => {
    // Two accounts run dry during the run, so the ends also land among 402 refusals.
    const accounts = openAccounts(world.databasePath, [1_000_000, 1_000_000, 3_000, 3_000]);
    const observed = new Map<string, AccountObservations>();
    let lost = 0;
    for (const ending of ENDINGS) {
      const load = await loadUntil(ending, accounts);
      expect(load.problems).toEqual([]);
      expect(load.latencies.length).toBeGreaterThanOrEqual(ANSWERS_BEFORE_KILL);
      expect(load.unanswered).toBeLessThanOrEqual(CONCURRENCY);
      // A request a graceful stop leaves unanswered (a keep-alive connection closed under it) was
      // never charged, so only kills may leave usage rows without an answer.
      if (ending === "SIGKILL") lost += load.unanswered;
      merge(observed, load.accounts);
      expect(auditLedger(world.databasePath, [...observed.values()], { unansweredAllowed: lost })).toEqual([]);
    }

    // The kills did land mid-load: requests were in flight and lost their answers.
    expect(lost).toBeGreaterThan(0);

    // The restarted server keeps serving and billing on the recovered database.
    const server = await spawnServer(world.databasePath);
    try {
      const after = await driveLoad(server.url, accounts, {
        requests: 200,
        concurrency: 8,
        deadline: Date.now() + 30_000,
      });
      expect(after.problems).toEqual([]);
      expect(after.unanswered).toBe(0);
      expect(after.statuses.get(200) ?? 0).toBeGreaterThan(0);
      merge(observed, after.accounts);
    } finally {
      await server.stop();
    }
    expect(auditLedger(world.databasePath, [...observed.values()], { unansweredAllowed: lost })).toEqual([]);
  }, 120_000);
});
