// The customer's request log: every request made with one of an account's keys, answered or refused,
// so the dashboard can explain each answer. A charged request is its usage row (written in the debit's
// own transaction, with its duration); every other one (a refusal, a quote, a replay, a free account
// read) is an entry of the RequestLog port, appended without waiting and written in batches, so neither
// kind adds a write to the charged path. Entries older than the retention (REQUEST_LOG_DAYS) are purged.

/** An answer that charged nothing, as the pipeline appends it. */
export interface UnchargedRequest {
  requestId: string;
  accountId: string;
  keyId: string;
  /** The catalogue entry's id, or an account read's ("account", "usage"). */
  endpoint: string;
  status: number;
  /** The error code of a refusal; null for an answer. */
  errorCode: string | null;
  durationMs: number;
  createdAt: number;
}

/** Where uncharged answers are logged. */
export interface RequestLog {
  /** Queues `entry`; it is written with others shortly after, never on the request's own path. */
  append(entry: UnchargedRequest): void;
  /** Writes what is queued (at shutdown, and for tests). */
  flush(): Promise<void>;
  /** Removes the entries created before `before` (epoch ms); resolves to how many went. */
  purge(before: number): Promise<number>;
}

/** The status a log shows for an answer the client never received (its charge, if any, refunded). */
export const CLIENT_CLOSED_STATUS = 499;

/** One request as the dashboard lists it, charged or not. */
export interface LoggedRequest {
  requestId: string;
  keyId: string;
  endpoint: string;
  status: number;
  errorCode: string | null;
  credits: number;
  /** Null for charges made before durations were kept. */
  durationMs: number | null;
  createdAt: number;
}

/** Which statuses a log query keeps: every one, answers (2xx), refusals (4xx and 5xx), or one code. */
export type StatusFilter = "all" | "ok" | "error" | number;

/** A position in the log, newest first: the entry to continue below. */
export interface LogPosition {
  createdAt: number;
  requestId: string;
}

export interface RequestLogQuery {
  /** Entries created from then on (the retention's start). */
  since: number;
  keyId?: string;
  endpoint?: string;
  status: StatusFilter;
  /** One request by its id (the x-request-id a client kept). */
  requestId?: string;
  /** Continue below this entry. */
  before?: LogPosition;
  limit: number;
}

export interface RequestLogPage {
  entries: LoggedRequest[];
  /** The position to pass as `before` for the next page; absent on the last one. */
  next?: LogPosition;
}

/** The statuses a filter keeps, lowest and highest: how both adapters bind it. */
export function statusRange(filter: StatusFilter): [number, number] {
  if (filter === "all") return [0, 999];
  if (filter === "ok") return [0, 399];
  if (filter === "error") return [400, 999];
  return [filter, filter];
}

/** The position of the first entry, above every other. */
export const LOG_TOP: LogPosition = { createdAt: Number.MAX_SAFE_INTEGER, requestId: "" };

/** How both adapters tell a page's end: `limit + 1` rows were read, and a page holds `limit`. */
export function logPage(rows: readonly LoggedRequest[], limit: number): RequestLogPage {
  const entries = rows.slice(0, limit);
  const last = entries.at(-1);
  return rows.length > limit && last
    ? { entries, next: { createdAt: last.createdAt, requestId: last.requestId } }
    : { entries };
}
