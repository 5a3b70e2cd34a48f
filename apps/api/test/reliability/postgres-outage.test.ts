// PostgreSQL going away under a steady charged load (#13), and coming back, three times. While it is down every
// answer is 503 service_unavailable in the error envelope, uncharged, never another 5xx, and the API
// process stays up (its docs still answer). Once it is back, the same process charges lookups again
// by itself, within a bounded time: its pool reconnects, nobody restarts it. Then the ledger audit.
//
// PostgreSQL listens on a port of the kernel's ephemeral range that connections may be given as their
// own: while it is down, the API's reconnection attempts must not reach themselves there and hold the
// port, which kept PostgreSQL from starting again until the API stopped.
//
// A debit whose COMMIT reached the database's log while its reply was lost with the server was answered
// 503, uncharged, and is refunded once the database is back (postgres-lost-commit.test.ts makes that
// happen on purpose): the audit waits a few seconds for those refunds and then wants the books exact.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { openBackend } from "@social/composition";
import { DEFAULT_WORLD } from "@social/fixtures";
import { type PostgresServer, startPostgres } from "@social/store-postgres/testing";
import { selfConnectablePort } from "@social/testing";
import { auditDatabase } from "./ledger-audit.ts";
import { driveLoad, type LoadAccount, type LoadAnswer, openAccountsWith } from "./load.ts";
import { type ServerProcess, spawnServer } from "./server-process.ts";

const CONCURRENCY = 16;
const GRANTS = [10_000_000, 10_000_000, 10_000_000, 10_000_000];
/** Kills, each followed by a restart: each kill lands among other requests in flight. */
const CYCLES = 3;
/**
 * Answers before each kill, and after each recovery: the load is under way, debits committing batch
 * after batch.
 */
const ANSWERS_BETWEEN = 400;
/**
 * The process keeps an active key's check for a second (packages/store-common/src/key-cache.ts):
 * until then a request the API refuses before reading anything (400) is still answered as such.
 */
const KEY_CACHE_MS = 1_000;
/** The outage lasts this long: well past the key cache's second, so key checks fail too. */
const OUTAGE_MS = 2_500;
/** The bound on the API's recovery once PostgreSQL accepts connections again. */
const RECOVERY_MS = 20_000;
/** How long a charge whose COMMIT reply was lost may stay before its refund (retried every second). */
const LOST_REPLY_REFUND_MS = 5_000;

let postgres: PostgresServer;
let databaseUrl: string;
let accounts: LoadAccount[];
let server: ServerProcess | undefined;

beforeAll(async () => {
  postgres = await startPostgres({ port: await selfConnectablePort() });
  databaseUrl = await postgres.createDatabase("outage");
  const backend = await openBackend(databaseUrl, { max: 4 });
  try {
    await backend.buildWorld(DEFAULT_WORLD);
    accounts = await openAccountsWith(backend.accounts, GRANTS);
  } finally {
    await backend.close();
  }
  server = await spawnServer(databaseUrl);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  postgres?.stop();
});

/** Resolves once `condition` holds, checked every 10 ms; rejects with `what` after `timeoutMs`. */
async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await Bun.sleep(10);
  }
}

function isUnavailable(answer: LoadAnswer): boolean {
  return answer.status === 503 && answer.errorCode === "service_unavailable";
}

/** One outage, in performance.now() time: the load's own timestamps are on the same clock. */
interface Outage {
  kill: number;
  killed: number;
  restart: number;
  restarted: number;
  /** When the first charged 200 sent after the restart was answered. */
  recovered: number;
  /** What /openapi.json, which needs no database, answered in the middle of it. */
  docs: number;
}

describe("PostgreSQL killed under a charged load, then restarted", () => {
  it(`${CYCLES} outages: 503 service_unavailable and uncharged while it is down; the same API process charges again once it is back`, async () => {
    const api = server as ServerProcess;
    const answers: LoadAnswer[] = [];
    const stopSending = new AbortController();
    const load = driveLoad(api.url, accounts, {
      requests: 1_000_000,
      concurrency: CONCURRENCY,
      deadline: Date.now() + 60_000,
      signal: stopSending.signal,
      requestTimeoutMs: 15_000,
      onAnswer: (_, answer) => answers.push(answer),
    });
    const outages: Outage[] = [];
    try {
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        const seen = answers.length;
        await until(() => answers.length >= seen + ANSWERS_BETWEEN, 20_000, "answers before the kill");
        const kill = performance.now();
        postgres.kill();
        const killed = performance.now();

        // Down: the process keeps serving what needs no database.
        await Bun.sleep(OUTAGE_MS / 2);
        const docs = (await fetch(`${api.url}/openapi.json`)).status;
        await Bun.sleep(OUTAGE_MS / 2);
        expect(api.running()).toBe(true);

        const restart = performance.now();
        postgres.restart();
        const restarted = performance.now();
        const recharged = () => answers.filter((a) => a.status === 200 && a.sentAt > restarted);
        await until(() => recharged().length > 0, RECOVERY_MS, "a charged 200 after the restart");
        const recovered = Math.min(...recharged().map((a) => a.answeredAt));
        outages.push({ kill, killed, restart, restarted, recovered, docs });
      }
      const seen = answers.length;
      await until(() => answers.length >= seen + ANSWERS_BETWEEN, 20_000, "answers after the last recovery");
    } finally {
      stopSending.abort();
    }
    const result = await load;

    const unavailable = answers.filter(isUnavailable);
    // Requests in flight at a kill (sent before it, answered after) whose answer was 503: the only ones
    // whose debit may have committed unheard.
    const inFlight = outages.flatMap((o) => answers.filter((a) => a.sentAt < o.kill && a.answeredAt > o.kill));
    const inFlightUnavailable = inFlight.filter(isUnavailable).length;
    // A debit whose COMMIT reply died with the server is refunded once it is back (retried every
    // second), so the books are audited until they balance, or for a few seconds.
    let audit = await auditDatabase(databaseUrl, result.accounts);
    for (let waited = 0; audit.problems.length > 0 && waited < LOST_REPLY_REFUND_MS; waited += 250) {
      await Bun.sleep(250);
      audit = await auditDatabase(databaseUrl, result.accounts);
    }
    const windows = outages.map((o, index) => {
      const next = outages[index + 1]?.kill ?? Number.POSITIVE_INFINITY;
      return {
        outage: o,
        during: answers.filter((a) => a.sentAt > o.killed && a.answeredAt < o.restart),
        afterRecovery: answers.filter((a) => a.sentAt > o.recovered && a.answeredAt < next),
      };
    });
    console.log(
      JSON.stringify({
        answers: answers.length,
        seconds: Number(result.seconds.toFixed(1)),
        statuses: Object.fromEntries(result.statuses),
        inFlightAtKills: inFlight.length,
        inFlightAnswered503: inFlightUnavailable,
        outages: windows.map(({ outage: o, during, afterRecovery }) => ({
          answeredWhileDown: during.length,
          firstUnavailableAfterKillMs: Math.round(
            Math.min(...unavailable.filter((a) => a.answeredAt > o.kill).map((a) => a.answeredAt)) - o.kill,
          ),
          outageMs: Math.round(o.restart - o.kill),
          recoveryAfterRestartMs: Math.round(o.recovered - o.restarted),
          answeredAfterRecovery: afterRecovery.length,
        })),
      }),
    );

    // Never a 5xx other than 503 service_unavailable, and that one in the error envelope with the
    // request id, uncharged: readAnswer finds nothing wrong with it but its status.
    expect(answers.filter((a) => a.status >= 500 && !isUnavailable(a))).toEqual([]);
    const broken = answers.filter((a) =>
      isUnavailable(a) ? a.problems.length !== 1 || !a.problems[0]?.startsWith("503 ") : a.problems.length > 0,
    );
    expect(broken.map((a) => `${a.status} ${a.path}: ${a.problems.join("; ")}`)).toEqual([]);
    expect(unavailable.every((a) => a.charged === 0)).toBe(true);
    expect(result.unanswered).toBe(0);
    // Nothing answered before the first kill was 503.
    expect(answers.filter((a) => a.answeredAt < (outages[0]?.kill ?? 0) && isUnavailable(a))).toEqual([]);

    for (const { outage: o, during, afterRecovery } of windows) {
      // While PostgreSQL was down nothing was charged: every answer is 503, or what the API gave before
      // reading anything on a key check it still held (a 400, or a dry run's free quote); once those
      // checks expired, everything is 503.
      const describe = (a: LoadAnswer) =>
        `${a.status} ${a.path} sent ${Math.round(a.sentAt - o.kill)} ms after the kill`;
      const freeQuote = (a: LoadAnswer) => a.status === 200 && a.charged === 0 && a.path.includes("dry_run=true");
      expect(during.length).toBeGreaterThan(CONCURRENCY);
      expect(during.filter((a) => !isUnavailable(a) && a.status !== 400 && !freeQuote(a)).map(describe)).toEqual([]);
      const keyChecksExpired = o.killed + KEY_CACHE_MS + 100;
      expect(during.filter((a) => a.sentAt > keyChecksExpired && !isUnavailable(a)).map(describe)).toEqual([]);
      expect(during.filter((a) => a.sentAt > keyChecksExpired).length).toBeGreaterThan(CONCURRENCY);
      expect(o.docs).toBe(200);

      // Back by itself, the same process, within the bound; once it charged again, nothing is refused.
      expect(o.recovered - o.restarted).toBeLessThan(RECOVERY_MS);
      expect(afterRecovery.length).toBeGreaterThanOrEqual(ANSWERS_BETWEEN - CONCURRENCY);
      expect(afterRecovery.filter((a) => a.status >= 500).map((a) => `${a.status} ${a.path}`)).toEqual([]);
    }
    expect(api.running()).toBe(true);

    // The books: grants = balance + usage, every reported charge recorded under its request id, no
    // 503 left charged, no usage row without an answer.
    expect(audit.problems).toEqual([]);
    expect(audit.unanswered).toEqual([]);

    // The operator's log names the outage: one service_unavailable line per refused database call.
    expect(await api.logs()).toContain('"kind":"service_unavailable"');
  }, 90_000);
});
