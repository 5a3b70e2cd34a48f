// An account's requests as its dashboard lists them, as on SQLite (store-sqlite's
// ledger/request-history.ts): charges (usage rows, a refunded one as never delivered) and the request
// log's uncharged answers, each side read from the page's position (below it newest first, or above it
// oldest first) along its (account_id, created_at) index, or by
// its request-id index when one request is asked for, cut to the page before they are merged; a side
// the status filter cannot keep is not read at all.
import {
  CLIENT_CLOSED_STATUS,
  type LoggedRefusal,
  logPage,
  type RequestLogPage,
  type RequestLogQuery,
} from "@social/core";
import { type ChargesKept, chargesKept, logDirection, requestLogBindings } from "@social/store-common";
import type { SQL } from "bun";

interface Row {
  request_id: string;
  key_id: string;
  endpoint: string;
  call: string | null;
  status: number;
  error_code: string | null;
  message: string | null;
  credits: string;
  duration_ms: string | null;
  created_at: string;
}

/** The conditions both sides share (`t` the side's table); with a request id the lookup starts from it. */
function filters(t: string, byId: boolean, { compare }: Direction): string {
  const first = byId ? `${t}.request_id = $7 AND ${t}.account_id = $1` : `${t}.account_id = $1 AND $7::text IS NULL`;
  return `${first} AND ${t}.created_at >= $2::bigint AND ($3::text IS NULL OR ${t}.key_id = $3)
    AND ($4::text IS NULL OR ${t}.endpoint = $4) AND (${t}.created_at, ${t}.request_id) ${compare} ($8::bigint, $9::text)`;
}

type Direction = ReturnType<typeof logDirection>;

/** The rows nearest the position first, one more than a page (`t.` where a side names its table). */
function nearest({ order }: Direction, t = ""): string {
  return `ORDER BY ${t}created_at ${order}, ${t}request_id ${order} LIMIT $10`;
}

const KEPT_CHARGES: Record<Exclude<ChargesKept, "none">, string> = {
  all: "",
  answered: " AND g.id IS NULL",
  refunded: " AND g.id IS NOT NULL",
};

function charges(kept: Exclude<ChargesKept, "none">, byId: boolean, direction: Direction): string {
  return `SELECT u.request_id, u.key_id, u.endpoint, u.call,
      CASE WHEN g.id IS NULL THEN 200 ELSE ${CLIENT_CLOSED_STATUS} END AS status, NULL::text AS error_code,
      NULL::text AS message,
      CASE WHEN g.id IS NULL THEN u.credits ELSE 0 END AS credits, u.duration_ms, u.created_at
    FROM usage u LEFT JOIN grants g ON g.refund_of = u.request_id WHERE ${filters("u", byId, direction)}${KEPT_CHARGES[kept]}
    ${nearest(direction, "u.")}`;
}

function uncharged(byId: boolean, direction: Direction): string {
  return `SELECT request_id, key_id, endpoint, call, status, error_code, message, 0::bigint AS credits, duration_ms,
      created_at
    FROM request_log r WHERE ${filters("r", byId, direction)} AND r.status BETWEEN $5 AND $6
      AND ($11::text IS NULL OR r.error_code = $11) ${nearest(direction)}`;
}

export async function requestLogPage(sql: SQL, accountId: string, query: RequestLogQuery): Promise<RequestLogPage> {
  const byId = query.requestId !== undefined;
  const kept = chargesKept(query);
  const direction = logDirection(query);
  const sides = [...(kept === "none" ? [] : [charges(kept, byId, direction)]), uncharged(byId, direction)];
  const merged = `SELECT * FROM (${sides.map((side) => `(${side})`).join(" UNION ALL ")}) merged ${nearest(direction)}`;
  const rows = await sql.unsafe<Row[]>(merged, [...requestLogBindings(accountId, query)]);
  const entries = rows.map((row) => ({
    requestId: row.request_id,
    keyId: row.key_id,
    endpoint: row.endpoint,
    call: row.call,
    status: Number(row.status),
    errorCode: row.error_code,
    message: row.message,
    credits: Number(row.credits),
    durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
    createdAt: Number(row.created_at),
  }));
  return logPage(entries, query);
}

/**
 * How many of the account's refusals of one kind since `since`, up to `atMost`: all are in the log.
 * Read along request_log_account_refusal, so only the rows counted are read.
 */
export const COUNT_REFUSED = `SELECT count(*) AS n FROM (SELECT 1 FROM request_log
  WHERE account_id = $1 AND status = $2 AND error_code = $3 AND created_at >= $4::bigint LIMIT $5) r`;

export async function countRefused(
  sql: SQL,
  accountId: string,
  refusal: LoggedRefusal,
  since: number,
  atMost: number,
): Promise<number> {
  const [row] = await sql.unsafe<{ n: string }[]>(COUNT_REFUSED, [
    accountId,
    refusal.status,
    refusal.errorCode,
    since,
    atMost,
  ]);
  return Number(row?.n ?? 0);
}
