// Monitors and their matches: what the API manages for an account, what the importer's matcher reads and
// records, and the delivery state (cursor, charge intent, webhook lease) that keeps each match delivered
// and charged once however many processes run. Decisions (what a query may be, what a delivery costs,
// when to hold or pause) are core's (../monitors/); an adapter stores and answers.
import type { Monitor, MonitorDelivery, MonitorNotice, MonitorStatus } from "../monitors/model.ts";

export interface NewMonitor {
  id: string;
  accountId: string;
  keyId: string;
  name?: string;
  query: string;
  delivery: MonitorDelivery;
  dailyCreditCap?: number;
  secret: string;
  /** Epoch ms. */
  now: number;
}

/** A field left out is kept; null clears an optional one. */
export interface MonitorChanges {
  name?: string | null;
  query?: string;
  delivery?: MonitorDelivery;
  dailyCreditCap?: number | null;
  /** Back to active clears pausedReason, the hold and the webhook's failing run. */
  status?: MonitorStatus;
}

export type MonitorCreation = { ok: true; monitor: Monitor } | { ok: false; reason: "limit" };

/** A post the import added while an active monitor existed, waiting to be matched; seq orders arrivals. */
export interface Arrival {
  seq: number;
  tweetId: string;
}

export interface MatchFound {
  monitorId: string;
  tweetId: string;
}

export interface MonitorMatch {
  /** The monitor's own sequence number of this match: the cursor. */
  seq: number;
  tweetId: string;
  /** Epoch ms. */
  matchedAt: number;
}

/**
 * A charge about to be made for a monitor's matches up to `throughSeq`: written before the Ledger's
 * debit (with `requestId`) and settled after it, so a process that dies in between leaves it to be
 * settled by retrying the same debit.
 */
export interface MonitorCharge {
  requestId: string;
  /** The monitor's chargedSeq the charge starts from. */
  afterSeq: number;
  throughSeq: number;
  credits: number;
  /** Days since the epoch (UTC) the credits count towards for the daily cap. */
  day: number;
  /** Epoch ms when the intent was written. */
  at: number;
}

/** How a claimed webhook delivery went. */
export type WebhookAttempt =
  | { outcome: "delivered" }
  /** Nothing sent: held, or nothing left to send; the monitor is looked at again at `nextAttemptAt`. */
  | { outcome: "waiting"; nextAttemptAt: number }
  | {
      outcome: "failed";
      error: string;
      /** Epoch ms of the next attempt. */
      nextAttemptAt: number;
      /** Set when the retry window is over: the monitor is paused with this reason. */
      pause?: MonitorNotice;
    };

export interface Monitors {
  /** Refuses (reason "limit") when the account holds `limit` monitors already; atomic with the count. */
  create(monitor: NewMonitor, limit: number): Promise<MonitorCreation>;
  /** The account's monitors, oldest first. */
  list(accountId: string): Promise<Monitor[]>;
  /** The account's monitor `id`; undefined when there is none or it is another account's. */
  get(accountId: string, id: string): Promise<Monitor | undefined>;
  update(accountId: string, id: string, changes: MonitorChanges, now: number): Promise<Monitor | undefined>;
  /** Removes the monitor and its matches; false when there was none of the account's. */
  remove(accountId: string, id: string): Promise<boolean>;

  /** Every active monitor's id and query, for the matcher's index. */
  activeQueries(): Promise<{ id: string; query: string }[]>;
  /** Moves whenever the set of active queries changes, so a matcher knows to rebuild its index. */
  queriesVersion(): Promise<number>;
  /** The oldest `limit` arrivals waiting to be matched. */
  arrivals(limit: number): Promise<Arrival[]>;
  /**
   * Records each match not recorded yet under its monitor's next seq (a monitor removed or paused
   * meanwhile gets none), then removes `arrivals`. Once the matches are recorded, a crash before the
   * removal leaves the arrivals to be matched again, which records nothing twice.
   */
  recordMatches(arrivals: readonly Arrival[], matches: readonly MatchFound[], now: number): Promise<void>;

  /** The monitor's matches with seq above `afterSeq`, oldest first, at most `limit` (a purged seq is absent). */
  matches(monitorId: string, afterSeq: number, limit: number): Promise<MonitorMatch[]>;
  /**
   * Settles an intent written before `writtenBefore` (epoch ms) by a process that stopped between its
   * debit and its settle, by the ledger itself: charged when the usage row of its request id exists.
   */
  resolveStaleCharge(monitorId: string, writtenBefore: number): Promise<void>;
  /** The intent written and not yet settled, if any. */
  pendingCharge(monitorId: string): Promise<MonitorCharge | undefined>;
  /** Writes the intent if chargedSeq is still `charge.afterSeq` and no intent is pending; false otherwise. */
  beginCharge(monitorId: string, charge: MonitorCharge): Promise<boolean>;
  /**
   * Clears the intent of `requestId` (nothing when another is pending); when `charged`, moves chargedSeq to
   * its throughSeq and counts its credits on its day.
   */
  settleCharge(monitorId: string, requestId: string, charged: boolean): Promise<void>;
  /** Sets or (undefined) lifts the hold on the monitor's deliveries. */
  setHold(monitorId: string, hold: MonitorNotice | undefined): Promise<void>;

  /**
   * Claims up to `limit` active webhook monitors with a delivery due at `now` (matches above chargedSeq
   * or a pending charge, next attempt due, no unexpired lease) for `leaseMs`, under `owner`.
   */
  claimWebhooks(owner: string, now: number, leaseMs: number, limit: number): Promise<Monitor[]>;
  /**
   * Records the webhook batch `owner` is about to send (the matches above chargedSeq up to `throughSeq`)
   * while it holds the monitor's lease, so that a retry by any process sends the same batch.
   */
  recordBatch(monitorId: string, owner: string, throughSeq: number): Promise<void>;
  /**
   * The retention: removes at most `limit` matches, of any monitor, matched before `before` (epoch ms),
   * in one short transaction, and says how many; the caller repeats until fewer than `limit` go. Seqs,
   * lastSeq and chargedSeq stay as they are: a purged match is only absent from what reads return.
   */
  purgeMatches(before: number, limit: number): Promise<number>;
  /** Records the claimed delivery's attempt and gives the lease back (only `owner`'s lease). */
  finishWebhook(monitorId: string, owner: string, attempt: WebhookAttempt): Promise<void>;
}
