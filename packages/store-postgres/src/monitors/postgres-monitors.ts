// The Monitors port on PostgreSQL, under the same contract as SQLite's
// (packages/store-sqlite/src/monitors/sqlite-monitors.ts), for any number of processes at once: a create
// counts under its account's row lock, recording locks its monitors' rows (in id order) so that each
// monitor's seqs commit in order, an intent or a settle is one conditional UPDATE, and a webhook claim
// skips the rows another claimer has locked, so no two processes ever hold one monitor's lease.
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
import type { SQL, TransactionSQL } from "bun";

type Row = MonitorRowOf<string>;

/** MONITOR_COLUMNS of the table aliased `m`, for statements that join it. */
const MONITOR_COLUMNS_OF_M = MONITOR_COLUMNS.split(", ")
  .map((column) => `m.${column}`)
  .join(", ");

const RELEASE_LEASE = "lease_owner = NULL, lease_until = NULL, claimed_at = NULL";

function queriesMoved(tx: TransactionSQL) {
  return tx`UPDATE monitor_queries SET version = version + 1 WHERE id = 1`;
}

export class PostgresMonitors implements Monitors {
  readonly #sql: SQL;

  constructor(sql: SQL) {
    this.#sql = sql;
  }

  /**
   * The account's row stays locked until the transaction ends (FOR NO KEY UPDATE, as for keys), so two
   * creates for one account, from any process, count and insert one after the other.
   */
  create(monitor: NewMonitor, limit: number): Promise<MonitorCreation> {
    return this.#sql.begin(async (tx): Promise<MonitorCreation> => {
      await tx`SELECT id FROM accounts WHERE id = ${monitor.accountId} FOR NO KEY UPDATE`;
      const [held] = await tx<
        { n: string }[]
      >`SELECT count(*) AS n FROM monitors WHERE account_id = ${monitor.accountId}`;
      if (Number(held?.n ?? 0) >= limit) return { ok: false, reason: "limit" };
      const [row] = await tx<Row[]>`
        INSERT INTO monitors ${tx(newMonitorColumns(monitor))} RETURNING ${tx.unsafe(MONITOR_COLUMNS)}`;
      await queriesMoved(tx);
      return { ok: true, monitor: monitorOf(row as Row) };
    });
  }

  async list(accountId: string): Promise<Monitor[]> {
    const rows = await this.#sql<Row[]>`
      SELECT ${this.#sql.unsafe(MONITOR_COLUMNS)} FROM monitors WHERE account_id = ${accountId}
      ORDER BY created_at, id`;
    return rows.map(monitorOf);
  }

  async get(accountId: string, id: string): Promise<Monitor | undefined> {
    const [row] = await this.#sql<Row[]>`
      SELECT ${this.#sql.unsafe(MONITOR_COLUMNS)} FROM monitors WHERE id = ${id} AND account_id = ${accountId}`;
    return row === undefined ? undefined : monitorOf(row);
  }

  update(accountId: string, id: string, changes: MonitorChanges, now: number): Promise<Monitor | undefined> {
    return this.#sql.begin(async (tx) => {
      const [row] = await tx<Row[]>`
        UPDATE monitors SET ${tx(monitorChangeColumns(changes, now))} WHERE id = ${id} AND account_id = ${accountId}
        RETURNING ${tx.unsafe(MONITOR_COLUMNS)}`;
      if (row === undefined) return undefined;
      if (changesActiveQueries(changes)) await queriesMoved(tx);
      return monitorOf(row);
    });
  }

  /** Its matches first, MATCHES_REMOVED_AT_ONCE per transaction, then the monitor. */
  async remove(accountId: string, id: string): Promise<boolean> {
    for (;;) {
      const removed = await this.#sql`
        DELETE FROM monitor_matches WHERE monitor_id = ${id}
          AND seq IN (SELECT seq FROM monitor_matches WHERE monitor_id = ${id} ORDER BY seq LIMIT ${MATCHES_REMOVED_AT_ONCE})
          AND EXISTS (SELECT 1 FROM monitors WHERE id = ${id} AND account_id = ${accountId})`;
      if (removed.count < MATCHES_REMOVED_AT_ONCE) break;
    }
    return this.#sql.begin(async (tx) => {
      const removed = await tx`DELETE FROM monitors WHERE id = ${id} AND account_id = ${accountId} RETURNING id`;
      if (removed.length === 0) return false;
      await queriesMoved(tx);
      return true;
    });
  }

  async activeQueries(): Promise<{ id: string; query: string }[]> {
    return [
      ...(await this.#sql<{ id: string; query: string }[]>`SELECT id, query FROM monitors WHERE status = 'active'`),
    ];
  }

  async queriesVersion(): Promise<number> {
    const [row] = await this.#sql<{ version: string }[]>`SELECT version FROM monitor_queries WHERE id = 1`;
    return Number(row?.version ?? 0);
  }

  async arrivals(limit: number): Promise<Arrival[]> {
    const rows = await this.#sql<{ seq: string; tweet_id: string }[]>`
      SELECT seq, tweet_id::text AS tweet_id FROM monitor_arrivals ORDER BY seq LIMIT ${limit}`;
    return rows.map((row) => ({ seq: Number(row.seq), tweetId: row.tweet_id }));
  }

  async recordMatches(arrivals: readonly Arrival[], matches: readonly MatchFound[], now: number): Promise<void> {
    const byMonitor = matchesByMonitor(arrivals, matches);
    await this.#sql.begin(async (tx) => {
      if (byMonitor.size > 0) await recordNew(tx, byMonitor, now);
      if (arrivals.length > 0) {
        await tx`DELETE FROM monitor_arrivals
                 WHERE seq = ANY(${tx.array(
                   arrivals.map(({ seq }) => String(seq)),
                   "TEXT",
                 )}::bigint[])`;
      }
    });
  }

  async matches(monitorId: string, afterSeq: number, limit: number): Promise<MonitorMatch[]> {
    const rows = await this.#sql<{ seq: string; tweet_id: string; matched_at: string }[]>`
      SELECT seq, tweet_id::text AS tweet_id, matched_at FROM monitor_matches
      WHERE monitor_id = ${monitorId} AND seq > ${afterSeq} ORDER BY seq LIMIT ${limit}`;
    return rows.map((row) => ({ seq: Number(row.seq), tweetId: row.tweet_id, matchedAt: Number(row.matched_at) }));
  }

  async resolveStaleCharge(monitorId: string, writtenBefore: number): Promise<void> {
    await this.#sql.begin(async (tx) => {
      const [stale] = await tx<{ request_id: string; charged: boolean }[]>`
        SELECT charge_request_id AS request_id,
               EXISTS (SELECT 1 FROM usage WHERE request_id = charge_request_id) AS charged
        FROM monitors WHERE id = ${monitorId} AND charge_request_id IS NOT NULL AND charge_at < ${writtenBefore}
        FOR NO KEY UPDATE`;
      if (stale !== undefined) await settle(tx, monitorId, stale.request_id, stale.charged);
    });
  }

  async pendingCharge(monitorId: string): Promise<MonitorCharge | undefined> {
    const [row] = await this.#sql<PendingChargeRowOf<string>[]>`
      SELECT ${this.#sql.unsafe(PENDING_CHARGE_COLUMNS)} FROM monitors
      WHERE id = ${monitorId} AND charge_request_id IS NOT NULL`;
    return row === undefined ? undefined : pendingChargeOf(row);
  }

  async beginCharge(monitorId: string, charge: MonitorCharge): Promise<boolean> {
    const begun = await this.#sql`
      UPDATE monitors SET charge_request_id = ${charge.requestId}, charge_after_seq = ${charge.afterSeq},
        charge_through_seq = ${charge.throughSeq}, charge_credits = ${charge.credits}, charge_day = ${charge.day},
        charge_at = ${charge.at}
      WHERE id = ${monitorId} AND charged_seq = ${charge.afterSeq} AND charge_request_id IS NULL RETURNING id`;
    return begun.length > 0;
  }

  async settleCharge(monitorId: string, requestId: string, charged: boolean): Promise<void> {
    await settle(this.#sql, monitorId, requestId, charged);
  }

  async setHold(monitorId: string, hold: MonitorNotice | undefined): Promise<void> {
    const notice = noticeColumns("hold", hold);
    await this.#sql`
      UPDATE monitors SET
        hold_since = CASE WHEN hold_reason IS NOT DISTINCT FROM ${notice.hold_reason}::text THEN hold_since
                          ELSE ${notice.hold_since}::bigint END,
        hold_reason = ${notice.hold_reason}, hold_message = ${notice.hold_message}
      WHERE id = ${monitorId}`;
  }

  async claimWebhooks(owner: string, now: number, leaseMs: number, limit: number): Promise<Monitor[]> {
    const sql = this.#sql;
    const rows = await sql<Row[]>`
      WITH due AS (
        SELECT id FROM monitors
        WHERE ${sql.unsafe(WEBHOOK_WORK)} AND next_attempt_at <= ${now} AND (lease_until IS NULL OR lease_until <= ${now})
        ORDER BY next_attempt_at LIMIT ${limit} FOR NO KEY UPDATE SKIP LOCKED)
      UPDATE monitors m SET lease_owner = ${owner}, lease_until = ${now + leaseMs}, claimed_at = ${now}
      FROM due WHERE m.id = due.id RETURNING ${sql.unsafe(MONITOR_COLUMNS_OF_M)}`;
    return rows.map(monitorOf);
  }

  async recordBatch(monitorId: string, owner: string, throughSeq: number): Promise<void> {
    await this.#sql`
      UPDATE monitors SET batch_through_seq = ${throughSeq} WHERE id = ${monitorId} AND lease_owner = ${owner}`;
  }

  async purgeMatches(before: number, limit: number): Promise<number> {
    const removed = await this.#sql`
      DELETE FROM monitor_matches WHERE (monitor_id, seq) IN
        (SELECT monitor_id, seq FROM monitor_matches WHERE matched_at < ${before} ORDER BY matched_at LIMIT ${limit})`;
    return removed.count;
  }

  async finishWebhook(monitorId: string, owner: string, attempt: WebhookAttempt): Promise<void> {
    const sql = this.#sql;
    switch (attempt.outcome) {
      case "delivered":
        await sql`
          UPDATE monitors SET failure_since = NULL, failure_attempts = NULL, failure_error = NULL,
            next_attempt_at = 0, ${sql.unsafe(RELEASE_LEASE)}
          WHERE id = ${monitorId} AND lease_owner = ${owner}`;
        return;
      case "waiting":
        await sql`
          UPDATE monitors SET next_attempt_at = ${attempt.nextAttemptAt}, ${sql.unsafe(RELEASE_LEASE)}
          WHERE id = ${monitorId} AND lease_owner = ${owner}`;
        return;
      case "failed":
        await sql.begin(async (tx) => {
          const failed = await tx`
            UPDATE monitors SET failure_since = coalesce(failure_since, claimed_at),
              failure_attempts = coalesce(failure_attempts, 0) + 1, failure_error = ${attempt.error},
              next_attempt_at = ${attempt.nextAttemptAt}, ${tx.unsafe(RELEASE_LEASE)}
            WHERE id = ${monitorId} AND lease_owner = ${owner} RETURNING id`;
          if (failed.length === 0 || !attempt.pause) return;
          const paused = { status: "paused", ...noticeColumns("paused", attempt.pause) };
          await tx`UPDATE monitors SET ${tx(paused)} WHERE id = ${monitorId}`;
          await queriesMoved(tx);
        });
        return;
    }
  }
}

/**
 * Records each monitor's new matches under its next seqs. The monitors' rows are locked in id order (no
 * two recorders deadlock on them) before their matches are read, so a recorder waits for another's
 * commit and then sees what it recorded.
 */
async function recordNew(tx: TransactionSQL, byMonitor: Map<string, string[]>, now: number): Promise<void> {
  const monitors = await tx<{ id: string; last_seq: string }[]>`
    SELECT id, last_seq FROM monitors WHERE id = ANY(${tx.array([...byMonitor.keys()], "TEXT")}) AND status = 'active'
    ORDER BY id FOR NO KEY UPDATE`;
  if (monitors.length === 0) return;
  const tweetIds = [...new Set([...byMonitor.values()].flat())];
  const recorded = await tx<{ monitor_id: string; tweet_id: string }[]>`
    SELECT monitor_id, tweet_id::text AS tweet_id FROM monitor_matches
    WHERE monitor_id = ANY(${tx.array(
      monitors.map(({ id }) => id),
      "TEXT",
    )}) AND tweet_id = ANY(${tx.array(tweetIds, "TEXT")}::bigint[])`;
  const known = new Set(recorded.map((row) => `${row.monitor_id} ${row.tweet_id}`));
  const rows = { monitor: [] as string[], seq: [] as string[], tweet: [] as string[] };
  const lastSeqs = { monitor: [] as string[], seq: [] as string[] };
  for (const monitor of monitors) {
    let seq = Number(monitor.last_seq);
    for (const tweetId of byMonitor.get(monitor.id) ?? []) {
      if (known.has(`${monitor.id} ${tweetId}`)) continue;
      seq++;
      rows.monitor.push(monitor.id);
      rows.seq.push(String(seq));
      rows.tweet.push(tweetId);
    }
    if (seq === Number(monitor.last_seq)) continue;
    lastSeqs.monitor.push(monitor.id);
    lastSeqs.seq.push(String(seq));
  }
  if (rows.monitor.length === 0) return;
  await tx`
    INSERT INTO monitor_matches (monitor_id, seq, tweet_id, matched_at)
    SELECT monitor_id, seq, tweet_id, ${now} FROM unnest(${tx.array(rows.monitor, "TEXT")}::text[],
      ${tx.array(rows.seq, "TEXT")}::bigint[], ${tx.array(rows.tweet, "TEXT")}::bigint[]) AS r(monitor_id, seq, tweet_id)`;
  await tx`
    UPDATE monitors m SET last_seq = s.seq
    FROM unnest(${tx.array(lastSeqs.monitor, "TEXT")}::text[], ${tx.array(lastSeqs.seq, "TEXT")}::bigint[]) AS s(id, seq)
    WHERE m.id = s.id`;
}

/** Clears the intent of `requestId`, moving chargedSeq and the day's credits when `charged` (the old row's values throughout). */
async function settle(sql: SQL | TransactionSQL, monitorId: string, requestId: string, charged: boolean) {
  await sql`
    UPDATE monitors m SET
      charged_seq = CASE WHEN s.charged THEN m.charge_through_seq ELSE m.charged_seq END,
      spent_on_day = CASE WHEN NOT s.charged THEN m.spent_on_day
                          WHEN m.charge_day = m.spent_day THEN m.spent_on_day + m.charge_credits
                          WHEN m.charge_day > m.spent_day THEN m.charge_credits ELSE m.spent_on_day END,
      spent_day = CASE WHEN s.charged THEN GREATEST(m.spent_day, m.charge_day) ELSE m.spent_day END,
      charge_request_id = NULL, charge_after_seq = NULL, charge_through_seq = NULL, charge_credits = NULL,
      charge_day = NULL, charge_at = NULL
    FROM (SELECT ${charged}::boolean AS charged) s
    WHERE m.id = ${monitorId} AND m.charge_request_id = ${requestId}`;
}
