// An account's requests as its dashboard lists them, as on SQLite (store-sqlite's
// ledger/request-history.ts): charges (usage rows, a refunded one as never delivered) and the request
// log's uncharged answers, each side read newest first along its (account_id, created_at) index and cut
// to the page before they are merged.
import { CLIENT_CLOSED_STATUS, logPage, type RequestLogPage, type RequestLogQuery } from "@social/core";
import { requestLogBindings } from "@social/store-kit";
import type { SQL } from "bun";

interface Row {
  request_id: string;
  key_id: string;
  endpoint: string;
  status: number;
  error_code: string | null;
  credits: string;
  duration_ms: string | null;
  created_at: string;
}

/** The conditions both sides share, on the columns both name alike (`t` the side's table). */
function filters(t: string): string {
  return `${t}.account_id = $1 AND ${t}.created_at >= $2::bigint AND ($3::text IS NULL OR ${t}.key_id = $3)
    AND ($4::text IS NULL OR ${t}.endpoint = $4) AND ($7::text IS NULL OR ${t}.request_id = $7)
    AND (${t}.created_at, ${t}.request_id) < ($8::bigint, $9::text)`;
}

const NEWEST = "ORDER BY created_at DESC, request_id DESC LIMIT $10";

const CHARGES = `SELECT * FROM (SELECT u.request_id, u.key_id, u.endpoint,
    CASE WHEN g.id IS NULL THEN 200 ELSE ${CLIENT_CLOSED_STATUS} END AS status, NULL::text AS error_code,
    CASE WHEN g.id IS NULL THEN u.credits ELSE 0 END AS credits, u.duration_ms, u.created_at
  FROM usage u LEFT JOIN grants g ON g.refund_of = u.request_id WHERE ${filters("u")}) c
  WHERE status BETWEEN $5 AND $6 ${NEWEST}`;

const UNCHARGED = `SELECT request_id, key_id, endpoint, status, error_code, 0::bigint AS credits, duration_ms, created_at
  FROM request_log r WHERE ${filters("r")} AND status BETWEEN $5 AND $6 ${NEWEST}`;

export async function requestLogPage(sql: SQL, accountId: string, query: RequestLogQuery): Promise<RequestLogPage> {
  const rows = await sql.unsafe<Row[]>(`(${CHARGES}) UNION ALL (${UNCHARGED}) ${NEWEST}`, [
    ...requestLogBindings(accountId, query),
  ]);
  const entries = rows.map((row) => ({
    requestId: row.request_id,
    keyId: row.key_id,
    endpoint: row.endpoint,
    status: Number(row.status),
    errorCode: row.error_code,
    credits: Number(row.credits),
    durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
    createdAt: Number(row.created_at),
  }));
  return logPage(entries, query.limit);
}
