// What both adapters' request logs share: the RequestLog port over store-common's WriteBehind (an adapter
// gives the statement that inserts a batch and the one that removes a chunk of old entries), which
// charges a query can keep, and the positional values of the log query both adapters' SQL binds.
import {
  CLIENT_CLOSED_STATUS,
  LOG_TOP,
  type RequestLog,
  type RequestLogQuery,
  statusRange,
  type UnchargedRequest,
} from "@social/core";
import { pause, reportLoss, WriteBehind, type WriteBehindOptions } from "./write-behind.ts";

/** A batch a quarter of a second: one write for every request answered meanwhile. */
export const REQUEST_LOG_WRITES: Omit<WriteBehindOptions, "onLoss"> = {
  intervalMs: 250,
  maxBatch: 2000,
  maxQueued: 100_000,
};

/** How many entries one purge statement removes: a purge of a month never holds a lock long. */
export const PURGE_CHUNK = 5000;

export interface RequestLogWrites {
  insert(batch: readonly UnchargedRequest[]): Promise<void>;
  /**
   * Removes those of the `limit` oldest entries (by id: they are appended in time order) created before
   * `before`; resolves to how many went. Fewer than `limit` means the old ones are all gone.
   */
  purgeChunk(before: number, limit: number): Promise<number>;
}

/**
 * Refusals for the rate limit listed per key and second: a client in a retry storm is explained by a
 * few of its 429s, and its flood does not become a row each in the database.
 */
const RATE_LIMITED_PER_SECOND = 5;

export class WriteBehindRequestLog implements RequestLog {
  readonly #writes: WriteBehind<UnchargedRequest>;
  readonly #statements: RequestLogWrites;
  /** Per key, the second of its latest 429s and how many of them were listed. */
  readonly #rateLimited = new Map<string, { second: number; listed: number }>();

  constructor(statements: RequestLogWrites, onLoss: WriteBehindOptions["onLoss"] = reportLoss) {
    this.#statements = statements;
    this.#writes = new WriteBehind((batch) => statements.insert(batch), { ...REQUEST_LOG_WRITES, onLoss });
  }

  append(entry: UnchargedRequest): void {
    if (entry.status === 429 && !this.#listRateLimited(entry)) return;
    this.#writes.append(entry);
  }

  flush(): Promise<void> {
    return this.#writes.flush();
  }

  async purge(before: number): Promise<number> {
    let removed = 0;
    for (;;) {
      const chunk = await this.#statements.purgeChunk(before, PURGE_CHUNK);
      removed += chunk;
      if (chunk < PURGE_CHUNK) return removed;
      // Requests go on between chunks: a month of log is purged without a pause anyone notices.
      await pause(0);
    }
  }

  #listRateLimited(entry: UnchargedRequest): boolean {
    const second = Math.floor(entry.createdAt / 1000);
    const seen = this.#rateLimited.get(entry.keyId);
    if (!seen || seen.second !== second) {
      // One entry per key that was refused in the last second, so the map stays as small as the flood.
      if (this.#rateLimited.size > 10_000) this.#rateLimited.clear();
      this.#rateLimited.set(entry.keyId, { second, listed: 1 });
      return true;
    }
    seen.listed++;
    return seen.listed <= RATE_LIMITED_PER_SECOND;
  }
}

/** Which charges a query can keep: they were answered (200), or refunded as never delivered (499). */
export type ChargesKept = "all" | "answered" | "refunded" | "none";

export function chargesKept(query: Pick<RequestLogQuery, "status" | "errorCode">): ChargesKept {
  // A charge is no refusal: it has no error code to match.
  if (query.errorCode !== undefined) return "none";
  const [from, to] = statusRange(query.status);
  const answered = from <= 200 && 200 <= to;
  const refunded = from <= CLIENT_CLOSED_STATUS && CLIENT_CLOSED_STATUS <= to;
  return answered ? (refunded ? "all" : "answered") : refunded ? "refunded" : "none";
}

/**
 * Which way a log query reads from its position, as both adapters' statements write it: below it newest
 * first, or above it (`after`, a newer page) oldest first, so that the rows nearest the position come
 * first and the page is cut there (core's logPage puts them back newest first).
 */
export function logDirection(query: Pick<RequestLogQuery, "after">): { compare: "<" | ">"; order: "DESC" | "ASC" } {
  return query.after === undefined ? { compare: "<", order: "DESC" } : { compare: ">", order: "ASC" };
}

/**
 * The log query's values in the order both adapters' statements number them: account, retention start,
 * key, endpoint, lowest and highest status, request id, the position to continue from (time, id; read
 * as logDirection says), one row more than a page (logPage tells the end by it), and the error code.
 */
export function requestLogBindings(accountId: string, query: RequestLogQuery): RequestLogBindings {
  const [statusFrom, statusTo] = statusRange(query.status);
  const from = query.after ?? query.before ?? LOG_TOP;
  return [
    accountId,
    query.since,
    query.keyId ?? null,
    query.endpoint ?? null,
    statusFrom,
    statusTo,
    query.requestId ?? null,
    from.createdAt,
    from.requestId,
    query.limit + 1,
    query.errorCode ?? null,
  ];
}

export type RequestLogBindings = [
  accountId: string,
  since: number,
  keyId: string | null,
  endpoint: string | null,
  statusFrom: number,
  statusTo: number,
  requestId: string | null,
  fromAt: number,
  fromId: string,
  limit: number,
  errorCode: string | null,
];
