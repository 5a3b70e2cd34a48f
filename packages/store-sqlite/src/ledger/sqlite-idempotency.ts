// Idempotency-Key records on bun:sqlite (see core's idempotency.ts). Each method is one step of a group
// commit (../group-commit.ts), which waits for a write lock held elsewhere without stopping the event
// loop; SQLite has one writer at a time, so concurrent reservations of a key find one owner.
import type { Database } from "bun:sqlite";
import {
  ABANDONED_AFTER_MS,
  IDEMPOTENCY_TTL_MS,
  type IdempotencyRecords,
  type IdempotencyScope,
  type Reservation,
  type StoredAnswer,
} from "@social/core";
import { StepCommit } from "../group-commit.ts";

interface Row {
  fingerprint: string;
  request_id: string;
  answer: string | null;
  created_at: number;
}

export class SqliteIdempotency implements IdempotencyRecords {
  readonly #db: Database;
  readonly #writes: StepCommit;

  constructor(db: Database) {
    this.#db = db;
    this.#writes = new StepCommit(db);
  }

  async reserve(scope: IdempotencyScope, fingerprint: string, requestId: string, now: number): Promise<Reservation> {
    const db = this.#db;
    return this.#writes.run((): Reservation => {
      db.query("DELETE FROM idempotency WHERE expires_at <= ?").run(now);
      const inserted = db
        .query(
          `INSERT INTO idempotency (account_id, key, fingerprint, request_id, created_at, expires_at)
             VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING 1`,
        )
        .get(scope.accountId, scope.key, fingerprint, requestId, now, now + IDEMPOTENCY_TTL_MS);
      if (inserted) return { kind: "reserved" };
      const row = db
        .query<Row, [string, string]>(
          "SELECT fingerprint, request_id, answer, created_at FROM idempotency WHERE account_id = ? AND key = ?",
        )
        .get(scope.accountId, scope.key) as Row;
      if (row.fingerprint !== fingerprint) return { kind: "mismatch" };
      if (row.answer !== null) return { kind: "replay", answer: JSON.parse(row.answer) as StoredAnswer };
      if (row.created_at > now - ABANDONED_AFTER_MS) return { kind: "in_progress" };
      db.query("UPDATE idempotency SET request_id = ?, created_at = ? WHERE account_id = ? AND key = ?").run(
        requestId,
        now,
        scope.accountId,
        scope.key,
      );
      return { kind: "reserved", abandonedBy: row.request_id };
    });
  }

  async complete(scope: IdempotencyScope, requestId: string, answer: StoredAnswer, now: number): Promise<void> {
    await this.#writes.run(() =>
      this.#db
        .query(
          `UPDATE idempotency SET answer = ?, expires_at = ?
           WHERE account_id = ? AND key = ? AND request_id = ? AND answer IS NULL`,
        )
        .run(JSON.stringify(answer), now + IDEMPOTENCY_TTL_MS, scope.accountId, scope.key, requestId),
    );
  }

  async release(scope: IdempotencyScope, requestId: string): Promise<void> {
    await this.#writes.run(() =>
      this.#db
        .query("DELETE FROM idempotency WHERE account_id = ? AND key = ? AND request_id = ? AND answer IS NULL")
        .run(scope.accountId, scope.key, requestId),
    );
  }
}
