import type { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashApiKey, LedgerError, MAX_ACTIVE_KEYS_PER_ACCOUNT } from "@social/core";
import {
  createAccount,
  createKey,
  dailyUsage,
  findOrCreateAccountBySubject,
  getAccount,
  grantCredits,
  hashApiKeySync,
  listKeys,
  openDatabase,
  recentRequests,
  revokeKey,
  SqliteLedger,
} from "../src/index.ts";

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

function grantRows(accountId: string): { credits: number; reason: string }[] {
  return db
    .query<{ credits: number; reason: string }, [string]>(
      "SELECT credits, reason FROM grants WHERE account_id = ? ORDER BY id",
    )
    .all(accountId);
}

function expectLedgerError(run: () => unknown, code: LedgerError["code"]): void {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(LedgerError);
    expect((error as LedgerError).code).toBe(code);
    return;
  }
  throw new Error(`expected a LedgerError ${code}`);
}

describe("accounts", () => {
  test("a new account starts with 1000 credits, recorded as a grant", () => {
    const account = createAccount(db, "Ada");
    expect(account.balance).toBe(1000);
    expect(getAccount(db, account.id)?.name).toBe("Ada");
    expect(grantRows(account.id)).toEqual([{ credits: 1000, reason: "starting credits" }]);
  });

  test("an account created with 0 credits has no grant row", () => {
    const account = createAccount(db, "Empty", 0);
    expect(account.balance).toBe(0);
    expect(grantRows(account.id)).toEqual([]);
  });

  test("a grant raises the balance and is recorded in the same transaction", () => {
    const account = createAccount(db, "Ada", 10);
    expect(grantCredits(db, account.id, 25)).toBe(35);
    expect(getAccount(db, account.id)?.balance).toBe(35);
    expect(grantRows(account.id).map((row) => row.credits)).toEqual([10, 25]);
  });

  test("grants to unknown accounts or of invalid amounts write nothing", () => {
    const account = createAccount(db, "Ada", 10);
    expectLedgerError(() => grantCredits(db, "acct_missing", 5), "unknown_account");
    for (const amount of [0, -5, 1.5, Number.NaN]) {
      expectLedgerError(() => grantCredits(db, account.id, amount), "invalid_amount");
    }
    expectLedgerError(() => createAccount(db, "Negative", -1), "invalid_amount");
    expect(db.query("SELECT count(*) AS n FROM grants").get()).toEqual({ n: 1 });
    expect(db.query("SELECT count(*) AS n FROM accounts").get()).toEqual({ n: 1 });
  });

  test("the schema itself refuses a negative balance", () => {
    const account = createAccount(db, "Ada", 3);
    expect(() => db.run("UPDATE accounts SET balance = balance - 4 WHERE id = ?", [account.id])).toThrow(/CHECK/);
    expect(getAccount(db, account.id)?.balance).toBe(3);
  });

  test("an identity-provider subject gets one account with 1000 credits, found again later", () => {
    const first = findOrCreateAccountBySubject(db, "https://idp.example", "user-1", "Ada");
    expect(first.created).toBe(true);
    expect(first.account.balance).toBe(1000);
    const again = findOrCreateAccountBySubject(db, "https://idp.example", "user-1", "Ada L.");
    expect(again).toEqual({ account: first.account, created: false });
    const otherIssuer = findOrCreateAccountBySubject(db, "https://other.example", "user-1", "Ada");
    expect(otherIssuer.account.id).not.toBe(first.account.id);
    expect(grantRows(first.account.id)).toEqual([{ credits: 1000, reason: "sign-up credits" }]);
  });
});

describe("keys", () => {
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

  test("unknown and malformed hashes are unknown", async () => {
    const ledger = new SqliteLedger(db);
    expect(await ledger.checkKey(hashApiKeySync("sk_live_00000000000000000000000000000000"))).toEqual({
      status: "unknown",
    });
    for (const malformed of [
      "",
      "abc",
      "Z".repeat(64),
      hashApiKeySync("x").toUpperCase(),
      `${hashApiKeySync("x")}00`,
    ]) {
      expect(await ledger.checkKey(malformed)).toEqual({ status: "unknown" });
    }
  });

  test("a key can be revoked by key, by id or by prefix, and then checks as revoked", async () => {
    const account = createAccount(db, "Ada");
    const ledger = new SqliteLedger(db);
    const byKey = createKey(db, account.id, "a");
    const byId = createKey(db, account.id, "b");
    const byPrefix = createKey(db, account.id, "c");
    expect(revokeKey(db, byKey.key).id).toBe(byKey.keyId);
    expect(revokeKey(db, byId.keyId).id).toBe(byId.keyId);
    expect(revokeKey(db, byPrefix.prefix).id).toBe(byPrefix.keyId);
    for (const { key, keyId } of [byKey, byId, byPrefix]) {
      expect(await ledger.checkKey(hashApiKeySync(key))).toEqual({ status: "revoked", keyId });
    }
  });

  test("revoking twice keeps the first revocation time", () => {
    const account = createAccount(db, "Ada");
    const { keyId } = createKey(db, account.id, "a");
    const first = revokeKey(db, keyId);
    db.run("UPDATE api_keys SET revoked_at = 1 WHERE id = ?", [keyId]);
    expect(revokeKey(db, keyId).revokedAt).toBe(1);
    expect(first.revokedAt).toBeGreaterThan(1);
  });

  test("revoking an unknown key or an ambiguous prefix fails and changes nothing", () => {
    const account = createAccount(db, "Ada");
    const created = createKey(db, account.id, "a");
    db.run(
      "INSERT INTO api_keys (id, account_id, name, prefix, hash, created_at) VALUES ('key_twin', ?, 'twin', ?, ?, 0)",
      [account.id, created.prefix, hashApiKeySync("twin")],
    );
    expectLedgerError(() => revokeKey(db, "key_missing"), "unknown_key");
    expectLedgerError(() => revokeKey(db, "sk_live_00000000000000000000000000000000"), "unknown_key");
    expectLedgerError(() => revokeKey(db, created.prefix), "ambiguous_key");
    expect(listKeys(db).every((key) => key.revokedAt === null)).toBe(true);
  });

  test("keys are listed per account or all together, without their secrets", () => {
    const ada = createAccount(db, "Ada");
    const bob = createAccount(db, "Bob");
    const adaKey = createKey(db, ada.id, "laptop");
    const bobKey = createKey(db, bob.id, "server");
    expect(listKeys(db, ada.id).map((key) => key.id)).toEqual([adaKey.keyId]);
    expect(listKeys(db).map((key) => key.id)).toEqual([adaKey.keyId, bobKey.keyId]);
    const [listed] = listKeys(db, bob.id);
    expect(listed).toMatchObject({ accountId: bob.id, name: "server", prefix: bobKey.prefix, revokedAt: null });
    expect(JSON.stringify(listed)).not.toContain(bobKey.key.slice(12));
  });

  test("a key for an unknown account is refused", () => {
    expectLedgerError(() => createKey(db, "acct_missing", "a"), "unknown_account");
  });
});

describe("the cap on active keys", () => {
  const activeKeys = (accountId: string) => listKeys(db, accountId).filter((key) => key.revokedAt === null);

  test(`an account holds at most ${MAX_ACTIVE_KEYS_PER_ACCOUNT} active keys; revoking one makes room`, () => {
    const account = createAccount(db, "Ada");
    const created = Array.from({ length: MAX_ACTIVE_KEYS_PER_ACCOUNT }, (_, i) => createKey(db, account.id, `k${i}`));
    expectLedgerError(() => createKey(db, account.id, "one too many"), "too_many_keys");
    expect(listKeys(db, account.id)).toHaveLength(MAX_ACTIVE_KEYS_PER_ACCOUNT);
    expect(createKey(db, createAccount(db, "Bob").id, "b").key).toBeString();

    revokeKey(db, created[0]?.keyId ?? "");
    createKey(db, account.id, "replacement");
    expect(activeKeys(account.id)).toHaveLength(MAX_ACTIVE_KEYS_PER_ACCOUNT);
    expectLedgerError(() => createKey(db, account.id, "one too many"), "too_many_keys");
  });

  test("processes creating keys at once never exceed the cap together", async () => {
    const account = createAccount(db, "Ada");
    const script = `
      import { createKey, openDatabase } from ${JSON.stringify(join(import.meta.dir, "../src/index.ts"))};
      const db = openDatabase(${JSON.stringify(`file:${file}`)});
      let made = 0;
      for (let i = 0; i < ${MAX_ACTIVE_KEYS_PER_ACCOUNT}; i++) {
        try { createKey(db, ${JSON.stringify(account.id)}, "race"); made++; }
        catch (error) { if (error.code !== "too_many_keys") throw error; }
      }
      console.log(made);`;
    const writers = Array.from({ length: 4 }, () =>
      Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" }),
    );
    const made = await Promise.all(
      writers.map(async (child) => {
        expect(await child.exited).toBe(0);
        return Number(await new Response(child.stdout).text());
      }),
    );
    expect(made.reduce((sum, n) => sum + n, 0)).toBe(MAX_ACTIVE_KEYS_PER_ACCOUNT);
    expect(activeKeys(account.id)).toHaveLength(MAX_ACTIVE_KEYS_PER_ACCOUNT);
  });
});

describe("usage summaries", () => {
  const DAY = 86_400_000;
  const today = Date.UTC(2025, 5, 30, 15, 0, 0);

  test("per-day usage covers the last N days, zero days included, today last", async () => {
    const account = createAccount(db, "Ada");
    const { keyId } = createKey(db, account.id, "a");
    let clock = today - 2 * DAY;
    const ledger = new SqliteLedger(db, { now: () => clock });
    await ledger.debit(account.id, { requestId: "r1", keyId, endpoint: "/v1/tweets/{id}", credits: 1 });
    await ledger.debit(account.id, { requestId: "r2", keyId, endpoint: "/v1/search/recent", credits: 21 });
    clock = today;
    await ledger.debit(account.id, { requestId: "r3", keyId, endpoint: "/v1/users/{id}", credits: 1 });
    clock = today - 40 * DAY;
    await ledger.debit(account.id, { requestId: "old", keyId, endpoint: "/v1/users/{id}", credits: 1 });

    const days = dailyUsage(db, account.id, 30, today);
    expect(days).toHaveLength(30);
    expect(days.at(-1)).toEqual({ day: "2025-06-30", requests: 1, credits: 1 });
    expect(days.at(-3)).toEqual({ day: "2025-06-28", requests: 2, credits: 22 });
    expect(days[0]?.day).toBe("2025-06-01");
    expect(days.reduce((sum, day) => sum + day.requests, 0)).toBe(3);
  });

  test("latest requests come newest first", async () => {
    const account = createAccount(db, "Ada");
    const { keyId } = createKey(db, account.id, "a");
    let clock = today;
    const ledger = new SqliteLedger(db, { now: () => clock });
    for (const requestId of ["r1", "r2", "r3"]) {
      await ledger.debit(account.id, { requestId, keyId, endpoint: "/v1/tweets/{id}", credits: 1 });
      clock += 1000;
    }
    const latest = recentRequests(db, account.id, 2);
    expect(latest.map((request) => request.requestId)).toEqual(["r3", "r2"]);
    expect(latest[0]).toEqual({
      requestId: "r3",
      keyId,
      endpoint: "/v1/tweets/{id}",
      credits: 1,
      createdAt: today + 2000,
    });
  });
});
