// Crash safety: SIGKILL the server process in the middle of a charged load, restart it on the same
// database, and audit. A debit and its usage row are one transaction and no response reports a charge
// before its COMMIT, so after any number of kills: every reported charge is in the ledger under its
// request id, grants = balance + usage for every account, and the only usage rows without an answer
// are requests that were in flight at a kill (their answers died with the process).
import { afterAll, describe, expect, it } from "bun:test";
import { type AccountObservations, auditLedger } from "./ledger-audit.ts";
import { driveLoad, type LoadAccount, openAccounts } from "./load.ts";
import { spawnServer, worldCopy } from "./server-process.ts";

const KILLS = 3;
const CONCURRENCY = 32;
/** Answers to wait for before each kill: enough that batches are committing back to back. */
const ANSWERS_BEFORE_KILL = 400;

const world = worldCopy();
afterAll(() => world.remove());

/** One load against a fresh server process, ended by SIGKILL once `ANSWERS_BEFORE_KILL` are in. */
async function loadUntilKilled(accounts: readonly LoadAccount[]) {
  const server = await spawnServer(world.databasePath);
  const stopSending = new AbortController();
  let killed: Promise<void> | undefined;
  const load = await driveLoad(server.url, accounts, {
    requests: 100_000,
    concurrency: CONCURRENCY,
    deadline: Date.now() + 30_000,
    signal: stopSending.signal,
    requestTimeoutMs: 15_000,
    onAnswer: (answered) => {
      if (answered < ANSWERS_BEFORE_KILL || killed) return;
      // Stop new requests first, so every lost one was really in flight when the process died.
      stopSending.abort();
      killed = server.kill();
    },
  });
  await (killed ?? server.kill());
  return load;
}

function merge(into: Map<string, AccountObservations>, observed: readonly AccountObservations[]): void {
  for (const { accountId, charges } of observed) {
    const known = into.get(accountId);
    into.set(accountId, { accountId, charges: [...(known?.charges ?? []), ...charges] });
  }
}

describe("crash safety", () => {
  it(`${KILLS} SIGKILLs mid-load, each followed by a restart on the same database: no charge lost or invented`, async () => {
    // Two accounts run dry during the run, so kills also land among 402 refusals.
    const accounts = openAccounts(world.databasePath, [1_000_000, 1_000_000, 3_000, 3_000]);
    const observed = new Map<string, AccountObservations>();
    let lost = 0;
    for (let kill = 0; kill < KILLS; kill++) {
      const load = await loadUntilKilled(accounts);
      expect(load.problems).toEqual([]);
      expect(load.latencies.length).toBeGreaterThanOrEqual(ANSWERS_BEFORE_KILL);
      expect(load.unanswered).toBeLessThanOrEqual(CONCURRENCY);
      lost += load.unanswered;
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
