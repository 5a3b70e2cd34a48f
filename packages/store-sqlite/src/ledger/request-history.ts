// An account's requests as its dashboard lists them: charges (usage rows, a refunded one as never
// delivered) and the request log's uncharged answers, merged newest first. Each side is read newest
// first along its (account_id, created_at) index and cut to the page before they are merged.
import type { Database } from "bun:sqlite";
import {
  CLIENT_CLOSED_STATUS,
  type LoggedRequest,
  logPage,
  type RequestLogPage,
  type RequestLogQuery,
} from "@social/core";
import { type RequestLogBindings, requestLogBindings } from "@social/store-kit";

/** The conditions both sides share, on the columns both name alike (`t` the side's table). */
function filters(t: string): string {
  return `${t}.account_id = ?1 AND ${t}.created_at >= ?2 AND (?3 IS NULL OR ${t}.key_id = ?3)
    AND (?4 IS NULL OR ${t}.endpoint = ?4) AND (?7 IS NULL OR ${t}.request_id = ?7)
    AND (${t}.created_at < ?8 OR (${t}.created_at = ?8 AND ${t}.request_id < ?9))`;
}

const NEWEST = "ORDER BY createdAt DESC, requestId DESC LIMIT ?10";

/** Charges: a refunded one (its answer never delivered) charged nothing in the end. */
const CHARGES = `SELECT * FROM (SELECT u.request_id AS requestId, u.key_id AS keyId, u.endpoint,
    CASE WHEN g.id IS NULL THEN 200 ELSE ${CLIENT_CLOSED_STATUS} END AS status, NULL AS errorCode,
    CASE WHEN g.id IS NULL THEN u.credits ELSE 0 END AS credits, u.duration_ms AS durationMs, u.created_at AS createdAt
  FROM usage u LEFT JOIN grants g ON g.refund_of = u.request_id WHERE ${filters("u")})
  WHERE status BETWEEN ?5 AND ?6 ${NEWEST}`;

const UNCHARGED = `SELECT request_id AS requestId, key_id AS keyId, endpoint, status, error_code AS errorCode,
    0 AS credits, duration_ms AS durationMs, created_at AS createdAt
  FROM request_log r WHERE ${filters("r")} AND status BETWEEN ?5 AND ?6 ${NEWEST}`;

export function requestLogPage(db: Database, accountId: string, query: RequestLogQuery): RequestLogPage {
  const rows = db
    .query<LoggedRequest, RequestLogBindings>(
      `SELECT * FROM (${CHARGES}) UNION ALL SELECT * FROM (${UNCHARGED}) ${NEWEST}`,
    )
    .all(...requestLogBindings(accountId, query));
  return logPage(rows, query.limit);
}

/** How many of the account's refusals since `since` had `status`: a refusal is never charged, so all are logged. */
export function countRefused(db: Database, accountId: string, status: number, since: number): number {
  const row = db
    .query<{ n: number }, [string, number, number]>(
      "SELECT count(*) AS n FROM request_log WHERE account_id = ? AND created_at >= ? AND status = ?",
    )
    .get(accountId, since, status);
  return row?.n ?? 0;
}
