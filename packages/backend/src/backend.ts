// What a process gets for DATABASE_URL, whichever adapter serves it: the four ports and the few
// operations around them that are not a port (the stored secrets, the world build, closing). The apps
// hold this and nothing else, so no app knows which database it runs on.
import type { Accounts, IdempotencyRecords, Ledger, Sessions, Store } from "@social/core";
import type { WorldOptions } from "@social/fixtures";
import type { WorldMeta } from "@social/store-kit";

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
  /** The server secret stored as `name`, generated on first use, so every process shares one. */
  secret(name: string): Promise<string>;
  hasWorld(): Promise<boolean>;
  /** Replaces the social world, all or nothing; the ledger and the accounts are left as they are. */
  buildWorld(options: WorldOptions, onProgress?: (progress: BuildProgress) => void): Promise<WorldMeta>;
  close(): Promise<void>;
}

export interface BackendOptions {
  /** SQLite: how commits reach the disk (see openDatabase); FULL when absent. */
  synchronous?: "NORMAL" | "FULL";
  /** PostgreSQL: connections in this process's pool. */
  max?: number;
}
