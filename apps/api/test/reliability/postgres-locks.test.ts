// Another session holds `LOCK tweets IN ACCESS EXCLUSIVE MODE` (what an operator's REINDEX, ALTER TABLE
// or VACUUM FULL takes) while clients search, count and look up over HTTP, on /v1 and /2. Waiting for the
// lock is not the query's cost: each answer is the usual 200 once the lock goes within the server's wait
// bound, or 503 service_unavailable with Retry-After past it (while the lock is still held), never the
// 400 that tells a search to narrow its query, nor a request kept waiting for as long as the lock lasts.
// Nothing is charged for a 503, and the books balance afterwards.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { openBackend } from "@social/composition";
import { DEFAULT_SEARCH_LIMITS } from "@social/core";
import { DEFAULT_WORLD, examples } from "@social/fixtures";
import { type PostgresServer, startPostgres } from "@social/store-postgres/testing";
import { type HeldLock, holdLock, LOCKS, waitersOnLocks } from "@social/store-postgres/testing/locks";
import { SQL } from "bun";
import { type Answer, readAnswer } from "./answer.ts";
import { auditDatabase, type ObservedCharge } from "./ledger-audit.ts";
import { type LoadAccount, openAccountsWith } from "./load.ts";
import { type ServerProcess, spawnServer } from "./server-process.ts";

const query = encodeURIComponent(examples.search_query);
/** Searches and counts on both surfaces: fewer than the searches a process runs at once (5). */
const READS = [
  `/v1/search/recent?query=${query}&limit=20`,
  `/2/tweets/search/recent?query=${query}&max_results=10&sort_order=relevancy`,
  `/v1/search/counts?query=${query}`,
  `/2/tweets/counts/recent?query=${query}&granularity=minute`,
];
/** Lookups and timelines, which have no budget of their own but the same bound on waiting. */
const LOOKUPS = [
  `/v1/tweets/${examples.tweet_id}`,
  `/2/tweets/${examples.tweet_id}`,
  `/v1/users/${examples.user_id}/tweets`,
  `/2/users/${examples.user_id}/tweets?max_results=10`,
];
/** Past a count's budget (500 ms) and well within the wait bound, after the reads are seen waiting. */
const HOLD_PAST_BUDGETS_MS = 700;
/** How long the lock outlasts the wait bound when the reads must give up. */
const OUTLASTS_MS = 5_000;

let postgres: PostgresServer;
let databaseUrl: string;
let admin: SQL;
let account: LoadAccount;
let server: ServerProcess;
const charges: ObservedCharge[] = [];

beforeAll(async () => {
  postgres = await startPostgres();
  databaseUrl = await postgres.createDatabase("locks");
  const backend = await openBackend(databaseUrl, { max: 4 });
  try {
    await backend.buildWorld(DEFAULT_WORLD);
    [account] = (await openAccountsWith(backend.accounts, [10_000])) as [LoadAccount];
  } finally {
    await backend.close();
  }
  admin = new SQL(databaseUrl, { max: 1 });
  server = await spawnServer(databaseUrl);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await admin?.close();
  postgres?.stop();
});

type Read = Answer & { path: string; retryAfter: string | null };

async function read(path: string): Promise<Read> {
  const response = await fetch(`${server.url}${path}`, {
    headers: { authorization: `Bearer ${account.key}` },
    signal: AbortSignal.timeout(DEFAULT_SEARCH_LIMITS.waitMs + OUTLASTS_MS * 2),
  });
  const answer = await readAnswer(response);
  charges.push({ requestId: answer.requestId, charged: answer.charged });
  return { ...answer, path, retryAfter: response.headers.get("retry-after") };
}

/** What a read answered, in a word: a charged 200, a 503 with Retry-After and no charge, or else all of it. */
function outcome(answer: Read): string {
  if (answer.status === 200 && answer.charged > 0 && answer.problems.length === 0) return "200";
  const retry = Number(answer.retryAfter);
  const unavailable = answer.status === 503 && answer.errorCode === "service_unavailable" && answer.charged === 0;
  if (unavailable && retry >= 1 && answer.problems.every((problem) => problem.startsWith("503 "))) return "503";
  return `${answer.status} ${answer.errorCode ?? ""} ${answer.path} retry-after ${answer.retryAfter}: ${answer.problems.join("; ")}`;
}

/**
 * Sends `reads` while `lock` is held, and releases it once `waiters` sessions wait for it (lookups of a
 * moment share statements) and `hold()` has ended.
 */
async function readWhileHeld(
  lock: HeldLock,
  hold: (answers: Promise<Read[]>) => Promise<unknown>,
  reads: readonly string[] = READS,
  waiters = reads.length,
): Promise<string[]> {
  let answers: Promise<Read[]> | undefined;
  try {
    answers = Promise.all(reads.map(read));
    await waitersOnLocks(admin, waiters);
    await hold(answers);
  } finally {
    await lock.release();
  }
  return (await answers).map(outcome);
}

describe("a lock on tweets held by another session, over HTTP", () => {
  it("released within the wait bound: searches and counts answer 200 and are charged as usual", async () => {
    const lock = await holdLock(databaseUrl, LOCKS.table);
    const outcomes = await readWhileHeld(lock, () => Bun.sleep(HOLD_PAST_BUDGETS_MS));
    expect(outcomes).toEqual(READS.map(() => "200"));
  }, 30_000);

  it("held past the wait bound: 503 service_unavailable with Retry-After while it lasts, uncharged", async () => {
    const lock = await holdLock(databaseUrl, LOCKS.table);
    const outcomes = await readWhileHeld(lock, (answers) => Promise.race([answers, Bun.sleep(OUTLASTS_MS)]));
    expect(outcomes).toEqual(READS.map(() => "503"));
    // Once it is gone, the same searches answer again.
    expect((await Promise.all(READS.map(read))).map(outcome)).toEqual(READS.map(() => "200"));
  }, 30_000);

  it("held past the wait bound: lookups and timelines are 503 with Retry-After too, uncharged", async () => {
    const lock = await holdLock(databaseUrl, LOCKS.table);
    const wait = (answers: Promise<Read[]>) => Promise.race([answers, Bun.sleep(OUTLASTS_MS)]);
    expect(await readWhileHeld(lock, wait, LOOKUPS, 1)).toEqual(LOOKUPS.map(() => "503"));
    expect((await Promise.all(LOOKUPS.map(read))).map(outcome)).toEqual(LOOKUPS.map(() => "200"));
  }, 30_000);

  it("left the books exact: every 200 charged and recorded, no 503 charged", async () => {
    const audit = await auditDatabase(databaseUrl, [{ accountId: account.accountId, charges }]);
    expect(audit.problems).toEqual([]);
    expect(audit.unanswered).toEqual([]);
  });
});
