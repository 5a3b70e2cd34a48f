// The RequestLog port on PostgreSQL (store-common's WriteBehindRequestLog): each batch is one INSERT of
// unnested arrays, a single round trip whatever its size.
import type { UnchargedRequest } from "@social/core";
import { type WriteBehindOptions, WriteBehindRequestLog } from "@social/store-common";
import type { SQL } from "bun";

export class PostgresRequestLog extends WriteBehindRequestLog {
  constructor(sql: SQL, onLoss?: WriteBehindOptions["onLoss"]) {
    super(
      {
        insert: (batch) => insert(sql, batch),
        purgeChunk: async (before, limit) =>
          (
            await sql`
              DELETE FROM request_log WHERE id IN (SELECT id FROM request_log ORDER BY id LIMIT ${limit})
                AND created_at < ${before}
              RETURNING id`
          ).length,
      },
      onLoss,
    );
  }
}

async function insert(sql: SQL, batch: readonly UnchargedRequest[]): Promise<void> {
  const text = (pick: (entry: UnchargedRequest) => string) => sql.array(batch.map(pick), "TEXT");
  const int = (pick: (entry: UnchargedRequest) => number) => sql.array(batch.map(pick), "INT8");
  // An empty text stands for none (no call, error code or message): an array of TEXT here holds no nulls.
  await sql`
    INSERT INTO request_log (request_id, account_id, key_id, endpoint, call, status, error_code, message, duration_ms, created_at)
    SELECT request_id, account_id, key_id, endpoint, nullif(call, ''), status, nullif(error_code, ''), nullif(message, ''),
      duration_ms, created_at
    FROM unnest(
      ${text((e) => e.requestId)}, ${text((e) => e.accountId)}, ${text((e) => e.keyId)}, ${text((e) => e.endpoint)},
      ${text((e) => e.call ?? "")}, ${int((e) => e.status)}, ${text((e) => e.errorCode ?? "")},
      ${text((e) => e.message ?? "")}, ${int((e) => e.durationMs)}, ${int((e) => e.createdAt)}
    ) AS l (request_id, account_id, key_id, endpoint, call, status, error_code, message, duration_ms, created_at)`;
}
