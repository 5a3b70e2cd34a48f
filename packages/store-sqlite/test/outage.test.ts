// This adapter's ports, as the composition hands them out (core's answeringOutages with this adapter's
// isDatabaseOutage), answer a database outage with ApiError service_unavailable, the one error every
// surface renders alike (503 on HTTP, a tool error on MCP), and charge nothing for it; any other error,
// the adapter's own or the client's, passes unchanged. Every method of every port, Store's included, is
// called in packages/composition/test/outage.test.ts; the ledger's and accounts' here also check the books.
import { Database } from "bun:sqlite";
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Accounts,
  ApiError,
  answeringOutages,
  BALANCE_REFUSAL,
  type Ledger,
  LedgerError,
  OUTAGE_RETRY_AFTER_S,
  type Sessions,
} from "@social/core";
import {
  createAccount,
  createKey,
  ledgerPathOf,
  openDatabase,
  SqliteAccounts,
  SqliteLedger,
  SqliteSessions,
  SqliteStore,
} from "../src/index.ts";
import { isDatabaseOutage } from "../src/outage.ts";

let dir: string;
let file: string;
let db: Database;
let accountId: string;
let keyId: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "outage-"));
  file = join(dir, "social.db");
  db = openDatabase(file);
  accountId = createAccount(db, "Ada", 10).id;
  keyId = createKey(db, accountId, "test").keyId;
});

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const answering = <Port extends object>(port: Port): Port => answeringOutages(port, isDatabaseOutage);

async function expectUnavailable(call: () => unknown, method: string): Promise<void> {
  const error = await Promise.resolve()
    .then(call)
    .then(
      () => new Error(`${method} did not fail`),
      (thrown: unknown) => thrown,
    );
  expect(error).toBeInstanceOf(ApiError);
  expect({ method, error }).toMatchObject({
    method,
    error: {
      code: "service_unavailable",
      status: 503,
      message: "The service is temporarily unavailable: retry in a few seconds",
      retryAfter: OUTAGE_RETRY_AFTER_S,
    },
  });
}

/** One call of every method of a port, so that the compiler names a method added without one. */
type EveryMethod<Port> = { [Method in keyof Port]: (port: Port) => Promise<unknown> };

const usage = (requestId: string) => ({ requestId, keyId, endpoint: "/v1/users/:id", credits: 1 });
const _page = { size: 20 };

const ledgerCalls: EveryMethod<Ledger> = {
  checkKey: (ledger) => ledger.checkKey("0".repeat(64)),
  balance: (ledger) => ledger.balance(accountId),
  debit: (ledger) => ledger.debit(accountId, usage("r1")),
  refund: (ledger) => ledger.refund(accountId, "r1"),
};

const accountsCalls: EveryMethod<Accounts> = {
  account: (accounts) => accounts.account(accountId),
  openAccount: (accounts) => accounts.openAccount("Bob"),
  accountForIdentity: (accounts) => accounts.accountForIdentity("https://id.example", "bob", "Bob"),
  grantCredits: (accounts) => accounts.grantCredits(accountId, 5),
  createKey: (accounts) => accounts.createKey(accountId, "second"),
  key: (accounts) => accounts.key("key_any"),
  listKeys: (accounts) => accounts.listKeys(accountId),
  updateKey: (accounts) => accounts.updateKey(keyId, { name: "renamed" }),
  revokeKey: (accounts) => accounts.revokeKey(keyId),
  dailyUsage: (accounts) => accounts.dailyUsage(accountId, 30),
  usageSummary: (accounts) => accounts.usageSummary(accountId, { from: 0, to: 1, groupBy: "key" }),
  recentRequests: (accounts) => accounts.recentRequests(accountId, 10),
  requestLog: (accounts) => accounts.requestLog(accountId, { since: 0, status: "all", limit: 10 }),
  countRefused: (accounts) => accounts.countRefused(accountId, BALANCE_REFUSAL, 0, 10),
  grants: (accounts) => accounts.grants(accountId, 10),
  lastTopUp: (accounts) => accounts.lastTopUp(accountId),
  setLowBalanceWarning: (accounts) => accounts.setLowBalanceWarning(accountId, 10),
  secret: (accounts) => accounts.secret("session_secret"),
};

const sessionsCalls: EveryMethod<Sessions> = {
  createSession: (sessions) => sessions.createSession("s1", { accountId, csrfToken: "t" }, 2_000, 1_000),
  findSession: (sessions) => sessions.findSession("s1", 1_000),
  deleteSession: (sessions) => sessions.deleteSession("s1"),
  saveSignIn: (sessions) => sessions.saveSignIn("a1", { state: "s", nonce: "n", codeVerifier: "v" }, 2_000, 1_000),
  takeSignIn: (sessions) => sessions.takeSignIn("a1", 1_000),
};

/** Every method of the port on a database closed under it. */
async function expectClosedUnavailable<Port>(port: Port, calls: EveryMethod<Port>): Promise<void> {
  db.close();
  for (const [method, call] of Object.entries<(port: Port) => Promise<unknown>>(calls)) {
    await expectUnavailable(() => call(port), method);
  }
}

/** The account as another connection reads it: the test's own is closed. */
function ledgerSeenFromOutside(): { balance: number; usage: number } {
  const reader = new Database(ledgerPathOf(file), { readonly: true });
  try {
    const balance = reader.query<{ balance: number }, [string]>("SELECT balance FROM accounts WHERE id = ?");
    const rows = reader.query<{ n: number }, []>("SELECT count(*) AS n FROM usage");
    return { balance: balance.get(accountId)?.balance ?? -1, usage: rows.get()?.n ?? -1 };
  } finally {
    reader.close();
  }
}

test("Ledger: every method on a closed database is service_unavailable, and nothing is charged", async () => {
  await expectClosedUnavailable(answering(new SqliteLedger(db)), ledgerCalls);
  expect(ledgerSeenFromOutside()).toEqual({ balance: 10, usage: 0 });
});

test("Accounts: every method on a closed database is service_unavailable", async () => {
  await expectClosedUnavailable(answering(new SqliteAccounts(db)), accountsCalls);
});

test("Sessions: every method on a closed database is service_unavailable", async () => {
  await expectClosedUnavailable(answering(new SqliteSessions(db)), sessionsCalls);
});

test("Ledger: a write lock held past the busy timeout fails the queued debit, uncharged; then it charges", async () => {
  const ledger = answering(new SqliteLedger(db));
  // The batch gives up on the lock at once instead of after openDatabase's five seconds.
  db.run("PRAGMA busy_timeout = 0");
  const other = new Database(ledgerPathOf(file));
  other.run("BEGIN IMMEDIATE");
  try {
    await expectUnavailable(() => ledger.debit(accountId, usage("r1")), "debit");
  } finally {
    other.run("ROLLBACK");
    other.close();
  }
  expect(ledgerSeenFromOutside()).toEqual({ balance: 10, usage: 0 });
  expect(await ledger.debit(accountId, usage("r1"))).toEqual({ ok: true, remaining: 9 });
});

test("other errors pass unchanged: the adapter's own and the client's", async () => {
  const ledger = answering(new SqliteLedger(db));
  await expect(ledger.balance("no-such-account")).rejects.toBeInstanceOf(LedgerError);
  await expect(ledger.debit(accountId, { ...usage("r1"), credits: -1 })).rejects.toMatchObject({
    code: "invalid_amount",
  });
  const store = answering(new SqliteStore(db));
  await expect(store.searchCommunities("cats", { size: 20, after: ["x"] })).rejects.toMatchObject({
    code: "invalid_request",
  });
});

test("a synchronous throw is answered like a rejection", async () => {
  class Counter {
    readonly #counted: Database;

    constructor(counted: Database) {
      this.#counted = counted;
    }

    accounts(): number {
      return this.#counted.query<{ n: number }, []>("SELECT count(*) AS n FROM accounts").get()?.n ?? 0;
    }
  }
  const counter = answering(new Counter(db));
  expect(counter.accounts()).toBe(1);
  db.close();
  expect(() => counter.accounts()).toThrow(ApiError);
  await expectUnavailable(() => counter.accounts(), "accounts");
});
