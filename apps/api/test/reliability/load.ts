// Concurrent clients replaying a fixed mix of charged reads against a base URL, bounded by a request
// count and a deadline. Each answer is checked (see answer.ts) and its charge remembered by request id,
// per account, so the ledger can be audited against exactly what clients were told.
import { examples } from "@social/fixtures";
import { createAccount, createKey, openDatabase } from "@social/store-sqlite";
import { readAnswer } from "./answer.ts";
import type { AccountObservations, ObservedCharge } from "./ledger-audit.ts";

export interface LoadAccount {
  accountId: string;
  key: string;
}

/** One account per grant, each with an active key, written to the database before the server opens it. */
export function openAccounts(databasePath: string, grants: readonly number[]): LoadAccount[] {
  const db = openDatabase(databasePath);
  try {
    return grants.map((credits, index) => {
      const account = createAccount(db, `load ${index}`, credits);
      return { accountId: account.id, key: createKey(db, account.id, "load").key };
    });
  } finally {
    db.close();
  }
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
];

export interface LoadOptions {
  requests: number;
  concurrency: number;
  /** Clients issue no new request after this time (ms since the epoch). */
  deadline: number;
  /** Once aborted, clients issue no new request; those in flight still complete or fail. */
  signal?: AbortSignal;
  /** The longest a single answer may take before it counts as lost. */
  requestTimeoutMs?: number;
  /** Called after each answer with the number answered so far (the crash test kills on a count). */
  onAnswer?: (answered: number) => void;
}

export interface LoadResult {
  accounts: AccountObservations[];
  /** Milliseconds per answered request, in completion order. */
  latencies: number[];
  statuses: Map<number, number>;
  /** Accounts that received 402 insufficient_credits at least once. */
  refusedAccounts: Set<string>;
  /** Requests sent that got no answer: refused connections, resets, timeouts. */
  unanswered: number;
  problems: string[];
  seconds: number;
}

export async function driveLoad(baseUrl: string, accounts: readonly LoadAccount[], options: LoadOptions) {
  const charges = accounts.map((): ObservedCharge[] => []);
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  const problems: string[] = [];
  const refusedAccounts = new Set<string>();
  let unanswered = 0;
  let next = 0;
  const started = performance.now();

  async function send(index: number): Promise<void> {
    const accountIndex = index % accounts.length;
    const account = accounts[accountIndex] as LoadAccount;
    // Stride through the mix so consecutive requests of one account differ in cost.
    const path = REQUEST_MIX[Math.floor(index / accounts.length) % REQUEST_MIX.length] as string;
    const sent = performance.now();
    let response: Response;
    try {
      response = await fetch(`${baseUrl}${path}`, {
        headers: { authorization: `Bearer ${account.key}` },
        signal: AbortSignal.timeout(options.requestTimeoutMs ?? 30_000),
      });
    } catch {
      unanswered++;
      return;
    }
    const answer = await readAnswer(response).catch(() => undefined);
    if (!answer) {
      unanswered++;
      return;
    }
    latencies.push(performance.now() - sent);
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    if (answer.status === 402) refusedAccounts.add(account.accountId);
    for (const problem of answer.problems) problems.push(`${path}: ${problem}`);
    charges[accountIndex]?.push({ requestId: answer.requestId, charged: answer.charged });
    options.onAnswer?.(latencies.length);
  }

  async function client(): Promise<void> {
    while (next < options.requests && Date.now() < options.deadline && !options.signal?.aborted) {
      await send(next++);
    }
  }

  await Promise.all(Array.from({ length: options.concurrency }, client));
  return {
    accounts: accounts.map((account, index) => ({ accountId: account.accountId, charges: charges[index] ?? [] })),
    latencies,
    statuses,
    refusedAccounts,
    unanswered,
    problems,
    seconds: (performance.now() - started) / 1000,
  } satisfies LoadResult;
}

/** The q-th quantile (0 to 1) of `values`, nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}
