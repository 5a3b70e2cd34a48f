// An account's requests as its dashboard lists them: charges (usage rows, a refunded one as never
// delivered) and the request log's uncharged answers, merged newest first. Each side is read from the
// page's position (below it newest first, or above it oldest first) along its (account_id, created_at) index, or by its request-id index when one request is
// asked for, and cut to the page before they are merged; a side the status filter cannot keep is not
// read at all.
import type { Database } from "bun:sqlite";
import {
  CLIENT_CLOSED_STATUS,
  type LoggedRefusal,
  type LoggedRequest,
  logPage,
  type RequestLogPage,
  type RequestLogQuery,
} from "@social/core";
import {
  type ChargesKept,
  chargesKept,
  logDirection,
  type RequestLogBindings,
  requestLogBindings,
} from "@social/store-common";

/**
 * The conditions both sides share, on the columns both name alike (`t` the side's table). With a
 * request id the lookup starts from it, so that its index is the one used.
 */
function filters(t: string, byId: boolean, { compare }: Direction): string {
  const first = byId ? `${t}.request_id = ?7 AND ${t}.account_id = ?1` : `${t}.account_id = ?1 AND (?7 IS NULL)`;
  return `${first} AND ${t}.created_at >= ?2 AND (?3 IS NULL OR ${t}.key_id = ?3) AND (?4 IS NULL OR ${t}.endpoint = ?4)
    AND (${t}.created_at ${compare} ?8 OR (${t}.created_at = ?8 AND ${t}.request_id ${compare} ?9))`;
}

type Direction = ReturnType<typeof logDirection>;

/** The rows nearest the position first, one more than a page. */
function nearest({ order }: Direction): string {
  return `ORDER BY createdAt ${order}, requestId ${order} LIMIT ?10`;
}

const KEPT_CHARGES: Record<Exclude<ChargesKept, "none">, string> = {
  all: "",
  answered: " AND g.id IS NULL",
  refunded: " AND g.id IS NOT NULL",
};

function charges(kept: Exclude<ChargesKept, "none">, byId: boolean, direction: Direction): string {
  return `SELECT u.request_id AS requestId, u.key_id AS keyId, u.endpoint, u.call,
      CASE WHEN g.id IS NULL THEN 200 ELSE ${CLIENT_CLOSED_STATUS} END AS status, NULL AS errorCode, NULL AS message,
      CASE WHEN g.id IS NULL THEN u.credits ELSE 0 END AS credits, u.duration_ms AS durationMs, u.created_at AS createdAt
    FROM usage u LEFT JOIN grants g ON g.refund_of = u.request_id WHERE ${filters("u", byId, direction)}${KEPT_CHARGES[kept]} ${nearest(direction)}`;
}

function uncharged(byId: boolean, direction: Direction): string {
  return `SELECT request_id AS requestId, key_id AS keyId, endpoint, call, status, error_code AS errorCode, message,
      0 AS credits, duration_ms AS durationMs, created_at AS createdAt
    FROM request_log r WHERE ${filters("r", byId, direction)} AND r.status BETWEEN ?5 AND ?6
      AND (?11 IS NULL OR r.error_code = ?11) ${nearest(direction)}`;
}

export function requestLogPage(db: Database, accountId: string, query: RequestLogQuery): RequestLogPage {
  const byId = query.requestId !== undefined;
  const kept = chargesKept(query);
  const direction = logDirection(query);
  const sides = [...(kept === "none" ? [] : [charges(kept, byId, direction)]), uncharged(byId, direction)];
  const rows = db
    .query<LoggedRequest, RequestLogBindings>(
      `${sides.map((side) => `SELECT * FROM (${side})`).join(" UNION ALL ")} ${nearest(direction)}`,
    )
    .all(...requestLogBindings(accountId, query));
  return logPage(rows, query);
}

/**
 * How many of the account's refusals of one kind since `since`, up to `atMost`: all are in the log.
 * Read along request_log_account_refusal, so only the rows counted are read.
 */
export const COUNT_REFUSED = `SELECT count(*) AS n FROM (SELECT 1 FROM request_log
  WHERE account_id = ? AND status = ? AND error_code = ? AND created_at >= ? LIMIT ?)`;

export function countRefused(
  db: Database,
  accountId: string,
  refusal: LoggedRefusal,
  since: number,
  atMost: number,
): number {
  const row = db
    .query<{ n: number }, [string, number, string, number, number]>(COUNT_REFUSED)
    .get(accountId, refusal.status, refusal.errorCode, since, atMost);
  return row?.n ?? 0;
}
