// What every topic of the Monitors conformance suite (../monitors.ts) shares: the fixture each test gets,
// the accounts it opens, and the helpers that make monitors and import posts.
import {
  type Accounts,
  type ImportBatch,
  importedTweet,
  importedUser,
  type Ledger,
  type Monitor,
  type Monitors,
  type NewMonitor,
  newMonitorId,
  newMonitorSecret,
  type WorldImport,
} from "@social/core";

export interface MonitorsFixture {
  monitors: Monitors;
  /** The same database through connections of its own, as a second process reaches it. */
  peer: Monitors;
  /** The accounts and the ledger on the same database: the owners of monitors and their charges. */
  accounts: Accounts;
  ledger: Ledger;
  /** The import into the same (empty) world: what writes the arrivals. */
  worldImport: WorldImport;
  close(): Promise<void>;
}

/** Two accounts with a key each; Ada's holds 1,000 credits. */
export interface Owners {
  ada: { accountId: string; keyId: string };
  bob: { accountId: string; keyId: string };
}

export interface MonitorsRun {
  fixture: MonitorsFixture;
  monitors: Monitors;
  owners: Owners;
}

/** A test of the suite, given the fixture the suite opens before it (and closes after). */
export type MonitorsTest = (name: string, body: (run: MonitorsRun) => Promise<void>, timeoutMs?: number) => void;

/** 2026-11-24T12:00Z: the suite's clock, passed to every method that takes one. */
export const T0 = Date.UTC(2026, 10, 24, 12);

export async function openOwners(accounts: Accounts): Promise<Owners> {
  const ada = await accounts.openAccount("Ada", 1_000);
  const bob = await accounts.openAccount("Bob");
  return {
    ada: { accountId: ada.account.id, keyId: ada.key.keyId },
    bob: { accountId: bob.account.id, keyId: bob.key.keyId },
  };
}

/** A new pull monitor of `owner` for `query`, created at `now`, with `fields` instead of the defaults. */
export function newMonitor(owner: { accountId: string; keyId: string }, fields: Partial<NewMonitor> = {}): NewMonitor {
  return {
    id: newMonitorId(),
    accountId: owner.accountId,
    keyId: owner.keyId,
    query: "coffee",
    delivery: { type: "pull" },
    secret: newMonitorSecret(),
    now: T0,
    ...fields,
  };
}

export const WEBHOOK = { type: "webhook", url: "https://hooks.example.com/social" } as const;

/** Creates the monitor and returns it; fails the test when the adapter refuses. */
export async function created(monitors: Monitors, monitor: NewMonitor, limit = 100): Promise<Monitor> {
  const creation = await monitors.create(monitor, limit);
  if (!creation.ok) throw new Error(`the monitor ${monitor.id} was refused: ${creation.reason}`);
  return creation.monitor;
}

const AUTHOR = importedUser({
  id: "900",
  username: "roaster",
  name: "Roaster",
  created_at: "2020-01-01T00:00:00.000Z",
});

/** A post of the suite's one author, with `likes` likes: another count makes it a newer copy of the same post. */
export function post(id: string, text = `coffee post ${id}`, likes = 0) {
  return importedTweet({
    id,
    text,
    author_id: AUTHOR.user.id,
    created_at: "2026-01-01T00:00:00.000Z",
    public_metrics: { like_count: likes },
  });
}

/** Imports `tweets` in one batch, with their author. */
export function importPosts(worldImport: WorldImport, tweets: ImportBatch["tweets"]) {
  return worldImport.write({ users: [AUTHOR], tweets });
}

/** `tweetId`s as matches of `monitorId`, for recordMatches. */
export function matchesOf(monitorId: string, tweetIds: readonly string[]) {
  return tweetIds.map((tweetId) => ({ monitorId, tweetId }));
}
