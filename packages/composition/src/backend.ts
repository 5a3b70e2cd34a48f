// What a process gets for DATABASE_URL, whichever adapter serves it: its ports, each answering an outage
// as service_unavailable (compose.ts), and the few operations around them that are not a port (the
// stored secrets, the world build, closing). The apps hold this and nothing else, so no app knows which
// database it runs on.
import type {
  Accounts,
  IdempotencyRecords,
  Ledger,
  Monitors,
  RequestLog,
  Sessions,
  Store,
  WorldImport,
  WorldRemoval,
} from "@social/core";
import type { WorldOptions } from "@social/fixtures";
import type { WorldMeta } from "@social/store-common";

export interface BuildProgress {
  tweets: number;
  totalTweets: number;
}

export interface Backend {
  readonly kind: "sqlite" | "postgres";
  readonly store: Store;
  readonly ledger: Ledger;
  readonly accounts: Accounts;
  readonly idempotency: IdempotencyRecords;
  readonly sessions: Sessions;
  /** Monitors, their matches and their delivery state (core's monitors/). */
  readonly monitors: Monitors;
  /** Where the pipeline logs answers that charged nothing (see core's request-log.ts). */
  readonly requestLog: RequestLog;
  /** The server secret stored as `name`, generated on first use, so every process shares one. */
  secret(name: string): Promise<string>;
  hasWorld(): Promise<boolean>;
  /** Replaces the social world, all or nothing; the ledger and the accounts are left as they are. */
  buildWorld(options: WorldOptions, onProgress?: (progress: BuildProgress) => void): Promise<WorldMeta>;
  /** Adds or replaces imported users and tweets (core's importSources drives it). */
  worldImport(): WorldImport;
  /** Removes tweets or users by id, with what depends on them (the operator's `remove`). */
  worldRemoval(): WorldRemoval;
  /** Waits for the ledger's writes in flight, writes what the request log holds, then closes the database. */
  close(): Promise<void>;
}

export interface BackendOptions {
  /** SQLite: how commits reach the disk (see openDatabase); FULL when absent. */
  synchronous?: "NORMAL" | "FULL";
  /**
   * This process answers requests (the HTTP and MCP servers). SQLite: checkpoints and the fsyncs of
   * group commits run off its event loop; a command (the CLI) commits and checkpoints as SQLite does.
   * PostgreSQL: a statement waits for another session's lock at most a search's wait bound, then
   * fails as an outage; a command waits as long as it must.
   */
  serving?: boolean;
  /** PostgreSQL: connections in this process's pool. */
  max?: number;
}
