// What both adapters' request logs share: the RequestLog port over store-kit's WriteBehind (an adapter
// gives the statement that inserts a batch and the one that removes a chunk of old entries), and the
// positional values of the log query both adapters' SQL binds.
import { LOG_TOP, type RequestLog, type RequestLogQuery, statusRange, type UnchargedRequest } from "@social/core";
import { reportLoss, WriteBehind, type WriteBehindOptions } from "./write-behind.ts";

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
  /** Removes up to `limit` entries created before `before`; resolves to how many went. */
  purgeChunk(before: number, limit: number): Promise<number>;
}

export class WriteBehindRequestLog implements RequestLog {
  readonly #writes: WriteBehind<UnchargedRequest>;
  readonly #statements: RequestLogWrites;

  constructor(statements: RequestLogWrites, onLoss: WriteBehindOptions["onLoss"] = reportLoss) {
    this.#statements = statements;
    this.#writes = new WriteBehind((batch) => statements.insert(batch), { ...REQUEST_LOG_WRITES, onLoss });
  }

  append(entry: UnchargedRequest): void {
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
    }
  }
}

/**
 * The log query's values in the order both adapters' statements number them: account, retention start,
 * key, endpoint, lowest and highest status, request id, the position to continue below (time, id),
 * and one row more than a page (logPage tells the end by it).
 */
export function requestLogBindings(accountId: string, query: RequestLogQuery): RequestLogBindings {
  const [statusFrom, statusTo] = statusRange(query.status);
  const before = query.before ?? LOG_TOP;
  return [
    accountId,
    query.since,
    query.keyId ?? null,
    query.endpoint ?? null,
    statusFrom,
    statusTo,
    query.requestId ?? null,
    before.createdAt,
    before.requestId,
    query.limit + 1,
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
  beforeAt: number,
  beforeId: string,
  limit: number,
];
