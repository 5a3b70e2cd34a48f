// The RequestLog port on bun:sqlite (store-common's WriteBehindRequestLog): each batch, and each chunk of
// a purge, is a write of the group commit, so it waits for another connection's write lock on a timer
// like the ledger does, never inside SQLite where the wait would stop the event loop.
import type { Database } from "bun:sqlite";
import type { UnchargedRequest } from "@social/core";
import { type WriteBehindOptions, WriteBehindRequestLog } from "@social/store-common";
import { GroupCommit } from "../group-commit.ts";

type Row = [string, string, string, string, string | null, number, string | null, string | null, number, number];

/** What the log writes: a batch of entries, or a chunk of old ones removed. Each says how many rows. */
type LogWrite = { insert: readonly UnchargedRequest[] } | { purge: { before: number; limit: number } };

export class SqliteRequestLog extends WriteBehindRequestLog {
  constructor(db: Database, onLoss?: WriteBehindOptions["onLoss"]) {
    const insert = db.query<void, Row>(
      `INSERT INTO request_log (request_id, account_id, key_id, endpoint, call, status, error_code, message, duration_ms, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    // Among the oldest entries by id, those older than the retention: a chunk that finds fewer is the last.
    const purge = db.query<{ id: number }, [number, number]>(
      "DELETE FROM request_log WHERE id IN (SELECT id FROM request_log ORDER BY id LIMIT ?2) AND created_at < ?1 RETURNING id",
    );
    const commits = new GroupCommit<LogWrite, number>(db, (writes) =>
      writes.map((write) => {
        if ("purge" in write) return { result: purge.all(write.purge.before, write.purge.limit).length };
        for (const e of write.insert) {
          insert.run(
            e.requestId,
            e.accountId,
            e.keyId,
            e.endpoint,
            e.call,
            e.status,
            e.errorCode,
            e.message,
            e.durationMs,
            e.createdAt,
          );
        }
        return { result: write.insert.length };
      }),
    );
    super(
      {
        insert: async (batch) => {
          await commits.submit({ insert: batch });
        },
        purgeChunk: (before, limit) => commits.submit({ purge: { before, limit } }),
      },
      onLoss,
    );
  }
}
