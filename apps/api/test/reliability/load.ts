// Concurrent clients replaying a fixed mix of charged reads against one server or several sharing a
// database, bounded by a request count and a deadline. Each answer is checked (see answer.ts) and its
// charge remembered by request id, per account, so the ledger can be audited against exactly what
// clients were told.
import type { Accounts, KeyOptions } from "@social/core";
import { examples } from "@social/fixtures";
import { createAccount, createKey, openDatabase } from "@social/store-sqlite";
import { type Answer, readAnswer } from "./answer.ts";
import type { AccountObservations, ObservedCharge } from "./ledger-audit.ts";

export interface LoadAccount {
  accountId: string;
  key: string;
}

/** One account per grant, each with an active key, written to the database before the server opens it. */
export function openAccounts(
  databasePath: string,
  grants: readonly number[],
  keyOptions: (index: number) => KeyOptions = () => ({}),
): LoadAccount[] {
  const db = openDatabase(databasePath);
  try {
    return grants.map((credits, index) => {
      const account = createAccount(db, `load ${index}`, credits);
      return { accountId: account.id, key: createKey(db, account.id, "load", keyOptions(index)).key };
    });
  } finally {
    db.close();
  }
}

/** The same, through the Accounts port of a backend on any database (PostgreSQL shared by processes). */
export async function openAccountsWith(
  accounts: Accounts,
  grants: readonly number[],
  keyOptions: (index: number) => KeyOptions = () => ({}),
): Promise<LoadAccount[]> {
  const opened: LoadAccount[] = [];
  for (const [index, credits] of grants.entries()) {
    const { account, key } = await accounts.openAccount(`load ${index}`, credits, keyOptions(index));
    opened.push({ accountId: account.id, key: key.key });
  }
  return opened;
}

/**
 * Every fourth key limited to a third of its account's grant, in total: below what the account could
 * pay, so it meets 402 key_limit while its account still has credits.
 */
export function everyFourthKeyLimited(grants: readonly number[]): (index: number) => KeyOptions {
  return (index) => (index % 4 === 3 ? { limit: { credits: Math.floor((grants[index] ?? 0) / 3), per: "total" } } : {});
}

const query = encodeURIComponent(examples.search_query);
const user = examples.user_id;

/**
 * Flat lookups, per-item and per-50-items pages, both surfaces, and uncharged failures (404, 400, the
 * /2 not-found lookup answered 200 with `errors`), so costs range from 0 to about 100 credits.
 */
export const REQUEST_MIX: readonly string[] = [
  `/v1/tweets/${examples.tweet_id}`,
  `/v1/search/recent?query=${query}&limit=20`,
  `/v1/users/by-username/${examples.username}`,
  `/v1/users/${user}/followers?mode=ids&limit=1000`,
  `/2/users/${user}`,
  `/v1/profiles/${user}`,
  `/2/tweets/search/recent?query=${query}&max_results=10`,
  `/v1/users/${user}/tweets`,
  `/2/users/${user}/followers?max_results=100`,
  `/v1/search/recent/enriched?query=${query}&limit=5`,
  `/2/tweets/${examples.quoted_tweet_id}/retweeted_by`,
  "/v1/tweets/999999999999",
  `/v1/search/recent?query=${query}&limit=99`,
  "/2/users/999999999999",
  // A page shortened to what its cap covers, and a quote that reads nothing.
  `/v1/search/recent?query=${query}&limit=20&max_credits=6`,
  `/v1/users/${user}/tweets?dry_run=true`,
  // Sent with an Idempotency-Key, then sent again as a client retries (see RETRIED).
  `/v1/users/${user}/tweets/replies`,
];

/** The paths of the mix a client sends twice with one Idempotency-Key: the retry must be a free replay. */
const RETRIED = new Set([`/v1/users/${user}/tweets/replies`]);

function sameAnswer(a: Answer | undefined, b: Answer): boolean {
  return a?.requestId === b.requestId && a.charged === b.charged && a.status === b.status;
}

/** The max_credits a path of the mix names, if it names one. */
function capOf(path: string): number | undefined {
  const cap = new URL(path, "http://load").searchParams.get("max_credits");
  return cap === null ? undefined : Number(cap);
}

export interface LoadOptions {
  requests: number;
  concurrency: number;
  /** Clients issue no new request after this time (ms since the epoch). */
  deadline: number;
  /** Once aborted, clients issue no new request; those in flight still complete or fail. */
  signal?: AbortSignal;
  /** The longest a single answer may take before it counts as lost. */
  requestTimeoutMs?: number;
  /**
   * A new connection per request (no keep-alive), so that workers sharing a port each get some: pooled
   * connections stay with the worker that accepted them.
   */
  newConnections?: boolean;
  /**
   * Also send identical requests in pairs, at once, with one Idempotency-Key (see sendTwice): for loads
   * that audit the books, not those that count answers against a kill.
   */
  pairs?: boolean;
  /** Called after each answer with the number answered so far (the crash test kills on a count). */
  onAnswer?: (answered: number, answer: LoadAnswer) => void;
}

/** One answered request, as the client saw it. */
export interface LoadAnswer extends ObservedCharge {
  accountId: string;
  path: string;
  /** The server that answered: the index of its base URL. */
  server: number;
  status: number;
  errorCode?: string;
  problems: readonly string[];
  /** performance.now() when the request was sent and when its whole answer had been read. */
  sentAt: number;
  answeredAt: number;
}

export interface LoadResult {
  accounts: AccountObservations[];
  /** Every answer, in completion order. */
  answers: LoadAnswer[];
  /** Milliseconds per answered request, in completion order. */
  latencies: number[];
  statuses: Map<number, number>;
  /** Accounts that received 402 insufficient_credits at least once. */
  refusedAccounts: Set<string>;
  /** 402s for a key's own limit (the rest were for the balance). */
  keyLimitRefusals: number;
  /** Requests sent that got no answer: refused connections, resets, timeouts. */
  unanswered: number;
  problems: string[];
  seconds: number;
}

/**
 * `baseUrl`: one server, or several serving the same database; each client keeps to one of them (client
 * i to server i mod n) while the requests it takes, and so the accounts, are shared by all clients.
 */
export async function driveLoad(
  baseUrl: string | readonly string[],
  accounts: readonly LoadAccount[],
  options: LoadOptions,
) {
  const baseUrls = typeof baseUrl === "string" ? [baseUrl] : baseUrl;
  const charges = accounts.map((): ObservedCharge[] => []);
  const answers: LoadAnswer[] = [];
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  const problems: string[] = [];
  const refusedAccounts = new Set<string>();
  let keyLimitRefusals = 0;
  let unanswered = 0;
  let next = 0;
  const started = performance.now();
  // Idempotency keys of this load only: the next load on the same accounts must not replay its answers.
  const run = crypto.randomUUID();

  /** Takes one answer into the books: its status, its problems, its charge. */
  function record(index: number, path: string, server: number, sent: number, answer: Answer): LoadAnswer {
    const accountIndex = index % accounts.length;
    const account = accounts[accountIndex] as LoadAccount;
    const answeredAt = performance.now();
    latencies.push(answeredAt - sent);
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    if (answer.status === 402) refusedAccounts.add(account.accountId);
    if (answer.refusal === "key_limit") keyLimitRefusals++;
    for (const problem of answer.problems) problems.push(`${path}: ${problem}`);
    const cap = capOf(path);
    if (cap !== undefined && answer.charged > cap) problems.push(`${path}: charged ${answer.charged}, above its cap`);
    charges[accountIndex]?.push({ requestId: answer.requestId, charged: answer.charged });
    const answered: LoadAnswer = {
      requestId: answer.requestId,
      charged: answer.charged,
      accountId: account.accountId,
      path,
      server,
      status: answer.status,
      ...(answer.errorCode === undefined ? {} : { errorCode: answer.errorCode }),
      problems: answer.problems,
      sentAt: sent,
      answeredAt,
    };
    answers.push(answered);
    options.onAnswer?.(latencies.length, answered);
    return answered;
  }

  async function send(index: number, server: number): Promise<void> {
    const account = accounts[index % accounts.length] as LoadAccount;
    // Stride through the mix so consecutive requests of one account differ in cost.
    const path = REQUEST_MIX[Math.floor(index / accounts.length) % REQUEST_MIX.length] as string;
    const sent = performance.now();
    const headers: Record<string, string> = { authorization: `Bearer ${account.key}` };
    if (RETRIED.has(path)) headers["idempotency-key"] = `load-${run}-${index}`;
    const request = () =>
      fetch(`${baseUrls[server]}${path}`, {
        headers,
        signal: AbortSignal.timeout(options.requestTimeoutMs ?? 30_000),
        keepalive: !options.newConnections,
      });
    const answer = await request().then(readAnswer, () => undefined);
    if (!answer) {
      unanswered++;
      return;
    }
    record(index, path, server, sent, answer);
    if (headers["idempotency-key"] !== undefined && answer.status === 200) await retry(path, answer, request);
  }

  /** The client's retry of a request that was answered: the same answer again, marked, and no new charge. */
  async function retry(path: string, first: Answer, request: () => Promise<Response>): Promise<void> {
    const again = await request().catch(() => undefined);
    if (!again) {
      unanswered++;
      return;
    }
    const replayed = again.headers.get("idempotent-replayed");
    const answer = await readAnswer(again).catch(() => undefined);
    if (!answer || replayed !== "true" || answer.requestId !== first.requestId || answer.charged !== first.charged) {
      problems.push(`${path}: a retry with its Idempotency-Key was not the first answer replayed`);
    }
  }

  /**
   * A client that sends one request twice at once with one Idempotency-Key (a retry fired on a timeout):
   * one runs and the other replays its answer; or, when the first failed (a 402 stores nothing), the
   * other ran afresh and both are requests of their own.
   */
  async function sendTwice(index: number, server: number): Promise<void> {
    const account = accounts[index % accounts.length] as LoadAccount;
    const path = [...RETRIED][0] as string;
    const headers = { authorization: `Bearer ${account.key}`, "idempotency-key": `load-${run}-twice-${index}` };
    const sent = performance.now();
    const request = () =>
      fetch(`${baseUrls[server]}${path}`, { headers, signal: AbortSignal.timeout(options.requestTimeoutMs ?? 30_000) })
        .then(async (response) => ({
          replayed: response.headers.get("idempotent-replayed") === "true",
          answer: await readAnswer(response),
        }))
        .catch(() => undefined);
    const [first, second] = await Promise.all([request(), request()]);
    if (!first || !second) {
      unanswered += (first ? 0 : 1) + (second ? 0 : 1);
      return;
    }
    const pair = [first, second];
    const replays = pair.filter((answered) => answered.replayed);
    const original = pair.find((answered) => !answered.replayed);
    const bothRan = replays.length === 0 && pair.every((answered) => answered.answer.status === 200);
    if (!original || bothRan || (replays.length === 1 && !sameAnswer(replays[0]?.answer, original.answer))) {
      problems.push(`${path}: two identical requests in flight were not one answer and its replay`);
    }
    for (const answered of pair) if (!answered.replayed) record(index, path, server, sent, answered.answer);
  }

  async function client(_: unknown, clientIndex: number): Promise<void> {
    while (next < options.requests && Date.now() < options.deadline && !options.signal?.aborted) {
      const index = next++;
      // One request in fifty is a pair sent at once with one Idempotency-Key.
      if (options.pairs && index % 50 === 49) await sendTwice(index, clientIndex % baseUrls.length);
      else await send(index, clientIndex % baseUrls.length);
    }
  }

  await Promise.all(Array.from({ length: options.concurrency }, client));
  return {
    accounts: accounts.map((account, index) => ({ accountId: account.accountId, charges: charges[index] ?? [] })),
    answers,
    latencies,
    statuses,
    refusedAccounts,
    keyLimitRefusals,
    unanswered,
    problems,
    seconds: (performance.now() - started) / 1000,
  } satisfies LoadResult;
}

/**
 * A load that, once `answers` are in, stops sending and ends the server with `end` (a kill or a
 * graceful stop), so every request it loses was in flight at that moment. Resolves once both are done.
 */
export async function loadUntilEnded(
  baseUrl: string,
  accounts: readonly LoadAccount[],
  options: { concurrency: number; answers: number; end: () => Promise<void> },
): Promise<LoadResult> {
  const stopSending = new AbortController();
  let ended: Promise<void> | undefined;
  const load = await driveLoad(baseUrl, accounts, {
    requests: 100_000,
    concurrency: options.concurrency,
    deadline: Date.now() + 30_000,
    signal: stopSending.signal,
    requestTimeoutMs: 15_000,
    onAnswer: (answered) => {
      if (answered < options.answers || ended) return;
      stopSending.abort();
      ended = options.end();
    },
  });
  await (ended ?? options.end());
  return load;
}

/** The q-th quantile (0 to 1) of `values`, nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}
