// The Monitors port on bun:sqlite. Every write is a step of a group commit (../group-commit.ts): its
// statements run inside one BEGIN IMMEDIATE transaction, so what a step reads (an account's count, a
// monitor's last seq, its intent, its lease) stays true until it commits, whichever connection writes
// next; and a write lock held elsewhere is waited for without stopping the event loop.
import type { Database } from "bun:sqlite";
import type {
  Arrival,
  MatchFound,
  Monitor,
  MonitorChanges,
  MonitorCharge,
  MonitorCreation,
  MonitorMatch,
  MonitorNotice,
  Monitors,
  NewMonitor,
  WebhookAttempt,
} from "@social/core";
import {
  boundId,
  changesActiveQueries,
  MATCHES_REMOVED_AT_ONCE,
  MONITOR_COLUMNS,
  type MonitorRowOf,
  matchesByMonitor,
  monitorChangeColumns,
  monitorOf,
  newMonitorColumns,
  noticeColumns,
  PENDING_CHARGE_COLUMNS,
  type PendingChargeRowOf,
  pendingChargeOf,
  WEBHOOK_WORK,
} from "@social/store-common";
import { StepCommit } from "../group-commit.ts";

type Row = MonitorRowOf<number>;

/** `UPDATE monitors SET …` of `columns`, each bound by its name. Column names come from store-common, never from input. */
function setting(columns: Record<string, unknown>): string {
  return Object.keys(columns)
    .map((column) => `${column} = $${column}`)
    .join(", ");
}

/** Clears the intent, moving chargedSeq and the day's credits when $charged (the old row's values throughout). */
const SETTLE_SET = `
  charged_seq = CASE WHEN $charged THEN charge_through_seq ELSE charged_seq END,
  spent_on_day = CASE WHEN NOT $charged THEN spent_on_day
                      WHEN charge_day = spent_day THEN spent_on_day + charge_credits
                      WHEN charge_day > spent_day THEN charge_credits ELSE spent_on_day END,
  spent_day = CASE WHEN $charged THEN max(spent_day, charge_day) ELSE spent_day END,
  charge_request_id = NULL, charge_after_seq = NULL, charge_through_seq = NULL, charge_credits = NULL,
  charge_day = NULL, charge_at = NULL`;

const RELEASE_LEASE = "lease_owner = NULL, lease_until = NULL, claimed_at = NULL";

function statements(db: Database) {
  return {
    count: db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM monitors WHERE account_id = ?"),
    insert: (columns: Record<string, unknown>) =>
      db.query<Row, [Record<string, string | number | null>]>(
        `INSERT INTO monitors (${Object.keys(columns).join(", ")})
         VALUES (${Object.keys(columns)
           .map((column) => `$${column}`)
           .join(", ")}) RETURNING ${MONITOR_COLUMNS}`,
      ),
    list: db.query<Row, [string]>(
      `SELECT ${MONITOR_COLUMNS} FROM monitors WHERE account_id = ? ORDER BY created_at, id`,
    ),
    get: db.query<Row, [string, string]>(`SELECT ${MONITOR_COLUMNS} FROM monitors WHERE id = ? AND account_id = ?`),
    update: (columns: Record<string, unknown>) =>
      db.query<Row, [Record<string, string | number | null>]>(
        `UPDATE monitors SET ${setting(columns)} WHERE id = $id AND account_id = $account_id RETURNING ${MONITOR_COLUMNS}`,
      ),
    remove: db.query<{ id: string }, [string, string]>(
      "DELETE FROM monitors WHERE id = ? AND account_id = ? RETURNING id",
    ),
    removeOldestMatches: db.query<void, [string, number]>(
      `DELETE FROM monitor_matches WHERE monitor_id = ?1
         AND seq IN (SELECT seq FROM monitor_matches WHERE monitor_id = ?1 ORDER BY seq LIMIT ?2)`,
    ),
    purgeMatches: db.query<void, [number, number]>(
      `DELETE FROM monitor_matches WHERE (monitor_id, seq) IN
         (SELECT monitor_id, seq FROM monitor_matches WHERE matched_at < ?1 ORDER BY matched_at LIMIT ?2)`,
    ),
    queriesMoved: db.query("UPDATE monitor_queries SET version = version + 1 WHERE id = 1"),
    queriesVersion: db.query<{ version: number }, []>("SELECT version FROM monitor_queries WHERE id = 1"),
    activeQueries: db.query<{ id: string; query: string }, []>(
      "SELECT id, query FROM monitors WHERE status = 'active'",
    ),
    arrivals: db.query<Arrival, [number]>(
      "SELECT seq, CAST(tweet_id AS TEXT) AS tweetId FROM monitor_arrivals ORDER BY seq LIMIT ?",
    ),
    removeArrival: db.query<void, [number]>("DELETE FROM monitor_arrivals WHERE seq = ?"),
    activeLastSeq: db.query<{ last_seq: number }, [string]>(
      "SELECT last_seq FROM monitors WHERE id = ? AND status = 'active'",
    ),
    insertMatch: db.query<{ seq: number }, [string, number, number | bigint, number]>(
      `INSERT INTO monitor_matches (monitor_id, seq, tweet_id, matched_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (monitor_id, tweet_id) DO NOTHING RETURNING seq`,
    ),
    setLastSeq: db.query<void, [number, string]>("UPDATE monitors SET last_seq = ? WHERE id = ?"),
    matches: db.query<MonitorMatch, [string, number, number]>(
      `SELECT seq, CAST(tweet_id AS TEXT) AS tweetId, matched_at AS matchedAt FROM monitor_matches
       WHERE monitor_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
    ),
    staleCharge: db.query<{ request_id: string; charged: number }, [string, number]>(
      `SELECT charge_request_id AS request_id,
              EXISTS (SELECT 1 FROM usage WHERE request_id = charge_request_id) AS charged
       FROM monitors WHERE id = ? AND charge_request_id IS NOT NULL AND charge_at < ?`,
    ),
    pendingCharge: db.query<PendingChargeRowOf<number>, [string]>(
      `SELECT ${PENDING_CHARGE_COLUMNS} FROM monitors WHERE id = ? AND charge_request_id IS NOT NULL`,
    ),
    beginCharge: db.query<{ id: string }, [Record<string, string | number>]>(
      `UPDATE monitors SET charge_request_id = $requestId, charge_after_seq = $afterSeq,
         charge_through_seq = $throughSeq, charge_credits = $credits, charge_day = $day, charge_at = $at
       WHERE id = $id AND charged_seq = $afterSeq AND charge_request_id IS NULL RETURNING id`,
    ),
    settle: db.query<void, [Record<string, string | boolean>]>(
      `UPDATE monitors SET ${SETTLE_SET} WHERE id = $id AND charge_request_id = $requestId`,
    ),
    setHold: db.query<void, [Record<string, string | number | null>]>(
      `UPDATE monitors SET hold_since = CASE WHEN hold_reason IS $hold_reason THEN hold_since ELSE $hold_since END,
         hold_reason = $hold_reason, hold_message = $hold_message WHERE id = $id`,
    ),
    anyDue: db.query<{ id: string }, [number, number]>(
      `SELECT id FROM monitors WHERE ${WEBHOOK_WORK} AND next_attempt_at <= ?1
         AND (lease_until IS NULL OR lease_until <= ?2) LIMIT 1`,
    ),
    claim: db.query<Row, [string, number, number, number, number, number]>(
      `UPDATE monitors SET lease_owner = ?1, lease_until = ?2, claimed_at = ?3
       WHERE id IN (SELECT id FROM monitors WHERE ${WEBHOOK_WORK} AND next_attempt_at <= ?4
                      AND (lease_until IS NULL OR lease_until <= ?5) ORDER BY next_attempt_at LIMIT ?6)
       RETURNING ${MONITOR_COLUMNS}`,
    ),
    recordBatch: db.query<void, [number, string, string]>(
      "UPDATE monitors SET batch_through_seq = ? WHERE id = ? AND lease_owner = ?",
    ),
    delivered: db.query<{ id: string }, [string, string]>(
      `UPDATE monitors SET failure_since = NULL, failure_attempts = NULL, failure_error = NULL, next_attempt_at = 0,
         ${RELEASE_LEASE} WHERE id = ? AND lease_owner = ? RETURNING id`,
    ),
    waiting: db.query<{ id: string }, [number, string, string]>(
      `UPDATE monitors SET next_attempt_at = ?, ${RELEASE_LEASE} WHERE id = ? AND lease_owner = ? RETURNING id`,
    ),
    failed: db.query<{ id: string }, [string, number, string, string]>(
      `UPDATE monitors SET failure_since = coalesce(failure_since, claimed_at),
         failure_attempts = coalesce(failure_attempts, 0) + 1, failure_error = ?, next_attempt_at = ?,
         ${RELEASE_LEASE} WHERE id = ? AND lease_owner = ? RETURNING id`,
    ),
    pause: db.query<void, [Record<string, string | number | null>]>(
      `UPDATE monitors SET status = 'paused', paused_reason = $paused_reason, paused_message = $paused_message,
         paused_since = $paused_since WHERE id = $id`,
    ),
  };
}

export class SqliteMonitors implements Monitors {
  readonly #q: ReturnType<typeof statements>;
  readonly #writes: StepCommit;

  constructor(db: Database) {
    this.#q = statements(db);
    this.#writes = new StepCommit(db);
  }

  create(monitor: NewMonitor, limit: number): Promise<MonitorCreation> {
    const q = this.#q;
    return this.#writes.run((): MonitorCreation => {
      if ((q.count.get(monitor.accountId)?.n ?? 0) >= limit) return { ok: false, reason: "limit" };
      const columns = newMonitorColumns(monitor);
      const row = q.insert(columns).get(columns) as Row;
      q.queriesMoved.run();
      return { ok: true, monitor: monitorOf(row) };
    });
  }

  async list(accountId: string): Promise<Monitor[]> {
    return this.#q.list.all(accountId).map(monitorOf);
  }

  async get(accountId: string, id: string): Promise<Monitor | undefined> {
    const row = this.#q.get.get(id, accountId);
    return row === null ? undefined : monitorOf(row);
  }

  update(accountId: string, id: string, changes: MonitorChanges, now: number): Promise<Monitor | undefined> {
    const q = this.#q;
    return this.#writes.run(() => {
      const columns = monitorChangeColumns(changes, now);
      const row = q.update(columns).get({ ...columns, id, account_id: accountId });
      if (row === null) return undefined;
      if (changesActiveQueries(changes)) q.queriesMoved.run();
      return monitorOf(row);
    });
  }

  /** Its matches first, MATCHES_REMOVED_AT_ONCE per step (other writes go in between), then the monitor. */
  async remove(accountId: string, id: string): Promise<boolean> {
    const q = this.#q;
    for (;;) {
      const removed = await this.#writes.run(() =>
        q.get.get(id, accountId) === null ? 0 : q.removeOldestMatches.run(id, MATCHES_REMOVED_AT_ONCE).changes,
      );
      if (removed < MATCHES_REMOVED_AT_ONCE) break;
    }
    return this.#writes.run(() => {
      if (q.remove.get(id, accountId) === null) return false;
      q.queriesMoved.run();
      return true;
    });
  }

  async activeQueries(): Promise<{ id: string; query: string }[]> {
    return this.#q.activeQueries.all();
  }

  async queriesVersion(): Promise<number> {
    return this.#q.queriesVersion.get()?.version ?? 0;
  }

  async arrivals(limit: number): Promise<Arrival[]> {
    return this.#q.arrivals.all(limit);
  }

  async recordMatches(arrivals: readonly Arrival[], matches: readonly MatchFound[], now: number): Promise<void> {
    const q = this.#q;
    await this.#writes.run(() => {
      for (const [monitorId, tweetIds] of matchesByMonitor(arrivals, matches)) {
        const monitor = q.activeLastSeq.get(monitorId);
        if (monitor === null) continue;
        let seq = monitor.last_seq;
        for (const tweetId of tweetIds) if (q.insertMatch.get(monitorId, seq + 1, boundId(tweetId), now)) seq++;
        if (seq !== monitor.last_seq) q.setLastSeq.run(seq, monitorId);
      }
    });
    // The matches are the ledger file's and the arrivals the world's: a transaction is atomic per file.
    await this.#writes.run(() => {
      for (const arrival of arrivals) q.removeArrival.run(arrival.seq);
    });
  }

  async matches(monitorId: string, afterSeq: number, limit: number): Promise<MonitorMatch[]> {
    return this.#q.matches.all(monitorId, afterSeq, limit);
  }

  async resolveStaleCharge(monitorId: string, writtenBefore: number): Promise<void> {
    const q = this.#q;
    await this.#writes.run(() => {
      const stale = q.staleCharge.get(monitorId, writtenBefore);
      if (stale !== null) q.settle.run({ id: monitorId, requestId: stale.request_id, charged: stale.charged === 1 });
    });
  }

  async pendingCharge(monitorId: string): Promise<MonitorCharge | undefined> {
    const row = this.#q.pendingCharge.get(monitorId);
    return row === null ? undefined : pendingChargeOf(row);
  }

  async beginCharge(monitorId: string, charge: MonitorCharge): Promise<boolean> {
    const q = this.#q;
    return this.#writes.run(() => q.beginCharge.get({ ...charge, id: monitorId }) !== null);
  }

  async settleCharge(monitorId: string, requestId: string, charged: boolean): Promise<void> {
    const q = this.#q;
    await this.#writes.run(() => q.settle.run({ id: monitorId, requestId, charged }));
  }

  async setHold(monitorId: string, hold: MonitorNotice | undefined): Promise<void> {
    const q = this.#q;
    await this.#writes.run(() => q.setHold.run({ ...noticeColumns("hold", hold), id: monitorId }));
  }

  /**
   * Every server process asks about once a second: a read answers when nothing is due, so an idle server
   * neither takes the write lock nor commits (which would empty the other processes' page caches).
   */
  async claimWebhooks(owner: string, now: number, leaseMs: number, limit: number): Promise<Monitor[]> {
    const q = this.#q;
    if (q.anyDue.get(now, now) === null) return [];
    return this.#writes.run(() => q.claim.all(owner, now + leaseMs, now, now, now, limit).map(monitorOf));
  }

  async recordBatch(monitorId: string, owner: string, throughSeq: number): Promise<void> {
    const q = this.#q;
    await this.#writes.run(() => q.recordBatch.run(throughSeq, monitorId, owner));
  }

  async purgeMatches(before: number, limit: number): Promise<number> {
    const q = this.#q;
    return this.#writes.run(() => q.purgeMatches.run(before, limit).changes);
  }

  async finishWebhook(monitorId: string, owner: string, attempt: WebhookAttempt): Promise<void> {
    const q = this.#q;
    await this.#writes.run(() => {
      switch (attempt.outcome) {
        case "delivered":
          q.delivered.get(monitorId, owner);
          return;
        case "waiting":
          q.waiting.get(attempt.nextAttemptAt, monitorId, owner);
          return;
        case "failed":
          if (q.failed.get(attempt.error, attempt.nextAttemptAt, monitorId, owner) === null || !attempt.pause) return;
          q.pause.run({ ...noticeColumns("paused", attempt.pause), id: monitorId });
          q.queriesMoved.run();
          return;
      }
    });
  }
}
