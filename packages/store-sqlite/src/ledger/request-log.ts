// The RequestLog port on bun:sqlite (store-kit's WriteBehindRequestLog): each batch is one transaction
// of the group commit, so it waits for another connection's write lock on a timer like the ledger does,
// not inside SQLite.
import type { Database } from "bun:sqlite";
import type { UnchargedRequest } from "@social/core";
import { type WriteBehindOptions, WriteBehindRequestLog } from "@social/store-kit";
import { GroupCommit } from "../group-commit.ts";

type Row = [string, string, string, string, number, string | null, number, number];

export class SqliteRequestLog extends WriteBehindRequestLog {
  constructor(db: Database, onLoss?: WriteBehindOptions["onLoss"]) {
    const insert = db.query<void, Row>(
      `INSERT INTO request_log (request_id, account_id, key_id, endpoint, status, error_code, duration_ms, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const purge = db.query<{ id: number }, [number, number]>(
      "DELETE FROM request_log WHERE id IN (SELECT id FROM request_log WHERE created_at < ? LIMIT ?) RETURNING id",
    );
    const commits = new GroupCommit<readonly UnchargedRequest[], undefined>(db, (batches) =>
      batches.map((entries) => {
        for (const e of entries) {
          insert.run(e.requestId, e.accountId, e.keyId, e.endpoint, e.status, e.errorCode, e.durationMs, e.createdAt);
        }
        return { result: undefined };
      }),
    );
    super(
      {
        insert: async (batch) => {
          await commits.submit(batch);
        },
        purgeChunk: async (before, limit) => purge.all(before, limit).length,
      },
      onLoss,
    );
  }
}
