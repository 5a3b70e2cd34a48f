// Idempotency-Key records on PostgreSQL (see core's idempotency.ts). A reservation is an INSERT that the
// primary key lets one request win, from any process; the others read the winner's row. Taking over an
// abandoned reservation is a conditional UPDATE, so two retries cannot both take it.
import {
  ABANDONED_AFTER_MS,
  IDEMPOTENCY_TTL_MS,
  type IdempotencyRecords,
  type IdempotencyScope,
  type Reservation,
  type StoredAnswer,
} from "@social/core";
import type { SQL } from "bun";

interface Row {
  fingerprint: string;
  request_id: string;
  answer: string | null;
  created_at: string;
}

export class PostgresIdempotency implements IdempotencyRecords {
  readonly #sql: SQL;

  constructor(sql: SQL) {
    this.#sql = sql;
  }

  async reserve(scope: IdempotencyScope, fingerprint: string, requestId: string, now: number): Promise<Reservation> {
    const sql = this.#sql;
    await sql`DELETE FROM idempotency WHERE expires_at <= ${now}`;
    for (;;) {
      const inserted = await sql`
        INSERT INTO idempotency (account_id, key, fingerprint, request_id, created_at, expires_at)
        VALUES (${scope.accountId}, ${scope.key}, ${fingerprint}, ${requestId}, ${now}, ${now + IDEMPOTENCY_TTL_MS})
        ON CONFLICT DO NOTHING RETURNING 1`;
      if (inserted.length > 0) return { kind: "reserved" };
      const [row] = await sql<Row[]>`
        SELECT fingerprint, request_id, answer, created_at FROM idempotency
        WHERE account_id = ${scope.accountId} AND key = ${scope.key}`;
      // Released (or expired) between the two statements: reserve again.
      if (!row) continue;
      if (row.fingerprint !== fingerprint) return { kind: "mismatch" };
      if (row.answer !== null) return { kind: "replay", answer: JSON.parse(row.answer) as StoredAnswer };
      if (Number(row.created_at) > now - ABANDONED_AFTER_MS) return { kind: "in_progress" };
      const taken = await sql`
        UPDATE idempotency SET request_id = ${requestId}, created_at = ${now}
        WHERE account_id = ${scope.accountId} AND key = ${scope.key} AND request_id = ${row.request_id}
          AND answer IS NULL RETURNING 1`;
      if (taken.length > 0) return { kind: "reserved", abandonedBy: row.request_id };
    }
  }

  async complete(scope: IdempotencyScope, requestId: string, answer: StoredAnswer, now: number): Promise<void> {
    await this.#sql`
      UPDATE idempotency SET answer = ${JSON.stringify(answer)}, expires_at = ${now + IDEMPOTENCY_TTL_MS}
      WHERE account_id = ${scope.accountId} AND key = ${scope.key} AND request_id = ${requestId} AND answer IS NULL`;
  }

  async release(scope: IdempotencyScope, requestId: string): Promise<void> {
    await this.#sql`
      DELETE FROM idempotency
      WHERE account_id = ${scope.accountId} AND key = ${scope.key} AND request_id = ${requestId} AND answer IS NULL`;
  }
}
