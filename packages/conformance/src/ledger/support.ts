// What the topics of the Ledger conformance suite (../ledger.ts) share: the fixture an adapter gives,
// and the helpers their tests build records and wait with.
import type { KeyOptions, Ledger, UsageRecord } from "@social/core";
import type { Books, CrossProcessRemaining } from "../serial-ledger.ts";

export interface LedgerFixture {
  ledger: Ledger;
  /** Another ledger on connections of its own to the same database, as a second process has. */
  openPeer(): Promise<{ ledger: Ledger; close(): Promise<void> }>;
  /** A new account whose starting `credits` are its first grant. */
  createAccount(credits: number): Promise<string>;
  createKey(accountId: string, options?: KeyOptions): Promise<{ keyId: string; keyHash: string }>;
  /** A ledger on the fixture's connection whose clock `now` pins (the day limits' UTC days). */
  ledgerAt(now: () => number): Ledger;
  grant(accountId: string, credits: number): Promise<void>;
  revokeKey(keyId: string): Promise<void>;
  books(accountId: string): Promise<Books>;
  charged(requestId: string): Promise<boolean>;
  lastUsedAt(keyId: string): Promise<number | null>;
  /** What a charge's `remaining` is while another process charges the same account. */
  crossProcessRemaining: CrossProcessRemaining;
  close(): Promise<void>;
}

export function usage(keyId: string, requestId: string, credits: number): UsageRecord {
  return { requestId, keyId, endpoint: "/v1/search/recent", credits };
}

/** Deterministic mixed costs 1..41, so a failure reproduces. */
export function costOf(index: number): number {
  return ((index * 7919) % 41) + 1;
}

export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

export const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * What `read` gives once `done` holds for it, or after half a second of asking: less than a process
 * keeps a key's check (store-common's key-cache.ts), so a change the adapter did not report fails.
 */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = performance.now() + 500;
  while (performance.now() < deadline) {
    const value = await read();
    if (done(value)) return value;
    await Bun.sleep(10);
  }
  return read();
}
