// The request log's port (../request-log.ts says what it holds and why): the uncharged answers an
// adapter appends, and the query the dashboard pages through, charges included.

/** An answer that charged nothing, as the pipeline appends it. */
export interface UnchargedRequest {
  requestId: string;
  accountId: string;
  keyId: string;
  /** The catalogue entry's id, or an account read's ("account", "usage"). */
  endpoint: string;
  /** What the client called (../request-log.ts, calledAs); null where its surface has no path (MCP). */
  call: string | null;
  status: number;
  /** The error code of a refusal; null for an answer. */
  errorCode: string | null;
  /** The message the refusal answered with; null for an answer. */
  message: string | null;
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
  /** What the client called; null for MCP and for entries kept before calls were. */
  call: string | null;
  status: number;
  errorCode: string | null;
  /** A refusal's message; null for answers and charges. */
  message: string | null;
  credits: number;
  /** Null for charges made before durations were kept. */
  durationMs: number | null;
  createdAt: number;
}

/** A kind of refusal as the log names it: its status and logged code. */
export interface LoggedRefusal {
  status: number;
  errorCode: string;
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
  /** Only refusals logged with this code (a key's limit apart from the balance: ../request-log.ts). */
  errorCode?: string;
  /** One request by its id (the x-request-id a client kept). */
  requestId?: string;
  /** Continue below this entry (an older page). */
  before?: LogPosition;
  /** Continue above this entry (a newer page); never with `before`. */
  after?: LogPosition;
  limit: number;
}

export interface RequestLogPage {
  entries: LoggedRequest[];
  /** The position to pass as `before` for the older page; absent on the last one. */
  next?: LogPosition;
  /** The position to pass as `after` for the newer page; absent on the first one. */
  newer?: LogPosition;
}
