import type { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BALANCE_REFUSAL, hashApiKey, LedgerError } from "@social/core";
import { createAccount, createKey, getAccount, hashApiKeySync, openDatabase, SqliteLedger } from "../src/index.ts";
import { COUNT_REFUSED } from "../src/ledger/request-history.ts";

let dir: string;
let file: string;
let db: Database;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ledger-accounts-"));
  file = join(dir, "social.db");
  db = openDatabase(`file:${file}`);
});

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function _grantRows(accountId: string): { credits: number; reason: string }[] {
  return db
    .query<{ credits: number; reason: string }, [string]>(
      "SELECT credits, reason FROM grants WHERE account_id = ? ORDER BY id",
    )
    .all(accountId);
}

function _expectLedgerError(run: () => unknown, code: LedgerError["code"]): void {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(LedgerError);
    expect((error as LedgerError).code).toBe(code);
    return;
  }
  throw new Error(`expected a LedgerError ${code}`);
}

// The Accounts contract (accounts, grants, keys, the key cap, usage summaries, secrets) is the
// conformance suite's (@social/conformance, run here by accounts-conformance.test.ts). What is left here
// is SQLite's own: what its file holds and what its schema refuses.
describe("SQLite's file and schema", () => {
  test("the schema itself refuses a negative balance", () => {
    const account = createAccount(db, "Ada", 3);
    expect(() => db.run("UPDATE accounts SET balance = balance - 4 WHERE id = ?", [account.id])).toThrow(/CHECK/);
    expect(getAccount(db, account.id)?.balance).toBe(3);
  });

  test("a key is returned once and stored only as its hash; the plaintext never reaches the file", async () => {
    const account = createAccount(db, "Ada");
    const created = createKey(db, account.id, "laptop");
    expect(created.key).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
    expect(created.prefix).toBe(created.key.slice(0, 12));
    const row = db
      .query<{ hash: string; prefix: string }, [string]>("SELECT hash, prefix FROM api_keys WHERE id = ?")
      .get(created.keyId);
    expect(row).toEqual({ hash: hashApiKeySync(created.key), prefix: created.prefix });

    const ledger = new SqliteLedger(db);
    expect(await ledger.checkKey(hashApiKeySync(created.key))).toEqual({
      status: "active",
      accountId: account.id,
      keyId: created.keyId,
      balance: account.balance,
    });

    db.close();
    const secret = created.key.slice(12);
    for (const path of [file, `${file}-wal`]) {
      if (!existsSync(path)) continue;
      const bytes = readFileSync(path).toString("latin1");
      expect(bytes.includes(created.key)).toBe(false);
      expect(bytes.includes(secret)).toBe(false);
    }
    db = openDatabase(`file:${file}`);
  });

  test("the stored digest is the one the request path computes", async () => {
    const { key } = createKey(db, createAccount(db, "Ada").id, "a");
    expect(hashApiKeySync(key)).toBe(await hashApiKey(key));
  });

  test("the banner's count of one kind of 402 is read along an index that holds its error code", () => {
    // Filtered on error_code after the index, it would read every 402 of the other kind (a flood of
    // key-limit refusals) on every page view to count the balance's.
    const plan = db
      .query<{ detail: string }, [string, number, string, number, number]>(`EXPLAIN QUERY PLAN ${COUNT_REFUSED}`)
      .all("acct_any", BALANCE_REFUSAL.status, BALANCE_REFUSAL.errorCode, 0, 1000)
      .map((step) => step.detail)
      .join("\n");
    expect(plan).toContain(
      "COVERING INDEX request_log_account_refusal (account_id=? AND status=? AND error_code=? AND created_at>?)",
    );
  });
});
