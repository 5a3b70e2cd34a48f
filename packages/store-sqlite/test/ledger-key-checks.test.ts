// checkKey keeps active keys' checks (store-common's key-cache.ts) until the ledger's key-changes
// counter moves (ledger/key-changes.ts): a change made by this connection shows in the very next check,
// one made by any other (another worker, the operator CLI) in the next turn of the event loop; another
// connection's debits move nothing, so its charges do not cost this process its checks.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KeyCheck } from "@social/core";
import {
  createAccount,
  createKey,
  grantCredits,
  hashApiKeySync,
  openDatabase,
  revokeKey,
  SqliteAccounts,
  SqliteLedger,
} from "../src/index.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

function twoConnections() {
  const dir = mkdtempSync(join(tmpdir(), "key-checks-"));
  dirs.push(dir);
  const path = join(dir, "social.db");
  const connections = { server: openDatabase(path), cli: openDatabase(path) };
  return {
    ...connections,
    close() {
      connections.cli.close();
      connections.server.close();
    },
  };
}

function activeKeyId(check: KeyCheck): string {
  if (check.status !== "active") throw new Error(`the key is ${check.status}`);
  return check.keyId;
}

test("a grant and a revocation made by another connection show in the next turn's check", async () => {
  const { server, cli, close } = twoConnections();
  const ledger = new SqliteLedger(server);
  const account = createAccount(server, "Ada", 100);
  const { key, keyId } = createKey(server, account.id, "k");
  const digest = hashApiKeySync(key);
  expect(await ledger.checkKey(digest)).toMatchObject({ status: "active", balance: 100 });

  grantCredits(cli, account.id, 50);
  await nextTurn();
  expect(await ledger.checkKey(digest)).toMatchObject({ status: "active", balance: 150 });
  revokeKey(cli, keyId);
  await nextTurn();
  expect(await ledger.checkKey(digest)).toMatchObject({ status: "revoked" });
  close();
});

test("a limit set by another connection, and a refund it makes, show in the next turn's check", async () => {
  const { server, cli, close } = twoConnections();
  const ledger = new SqliteLedger(server);
  const account = createAccount(server, "Ada", 100);
  const { key, keyId } = createKey(server, account.id, "k");
  const digest = hashApiKeySync(key);
  await ledger.debit(account.id, { requestId: "r1", keyId, endpoint: "/v1/tweets/{id}", credits: 7 });
  expect(await ledger.checkKey(digest)).toMatchObject({ status: "active", balance: 93 });

  await new SqliteAccounts(cli).updateKey(keyId, { name: "k", limit: { credits: 10, per: "total" } });
  await nextTurn();
  expect(await ledger.checkKey(digest)).toMatchObject({ allowance: { credits: 10, per: "total", remaining: 3 } });
  await new SqliteLedger(cli).refund(account.id, "r1");
  await nextTurn();
  expect(await ledger.checkKey(digest)).toMatchObject({ balance: 100, allowance: { remaining: 10 } });
  close();
});

test("this connection's own changes and debits show in the very next check", async () => {
  const { server, close } = twoConnections();
  const ledger = new SqliteLedger(server);
  const account = createAccount(server, "Ada", 100);
  const { key, keyId } = createKey(server, account.id, "first");
  const digest = hashApiKeySync(key);
  activeKeyId(await ledger.checkKey(digest));
  await ledger.debit(account.id, { requestId: "r1", keyId, endpoint: "/v1/tweets/{id}", credits: 7 });
  expect(await ledger.checkKey(digest)).toMatchObject({ status: "active", balance: 93 });
  grantCredits(server, account.id, 7);
  expect(await ledger.checkKey(digest)).toMatchObject({ status: "active", balance: 100 });
  revokeKey(server, keyId);
  expect(await ledger.checkKey(digest)).toMatchObject({ status: "revoked" });
  close();
});

test("a key another connection creates is known at once", async () => {
  const { server, cli, close } = twoConnections();
  const ledger = new SqliteLedger(server);
  const account = createAccount(server, "Ada", 100);
  const { key: second } = createKey(cli, account.id, "second");
  expect(await ledger.checkKey(hashApiKeySync(second))).toMatchObject({ status: "active", balance: 100 });
  close();
});

test("another connection's debits leave this process's checks kept, for up to a second", async () => {
  const { server, cli, close } = twoConnections();
  const ledger = new SqliteLedger(server);
  const otherWorker = new SqliteLedger(cli);
  const account = createAccount(server, "Ada", 100);
  const { key, keyId } = createKey(server, account.id, "k");
  const digest = hashApiKeySync(key);
  expect(await ledger.checkKey(digest)).toMatchObject({ balance: 100 });

  await otherWorker.debit(account.id, { requestId: "r1", keyId, endpoint: "/v1/tweets/{id}", credits: 7 });
  await nextTurn();
  // Kept: not read again, which after the other connection's commit would cost page reads.
  expect(await ledger.checkKey(digest)).toMatchObject({ balance: 100 });
  await Bun.sleep(1_100);
  expect(await ledger.checkKey(digest)).toMatchObject({ balance: 93 });
  close();
});

test("a refund batched with the account's other charges gives its key's allowance back at once", async () => {
  const { server, close } = twoConnections();
  const ledger = new SqliteLedger(server);
  const account = createAccount(server, "Ada", 100);
  const limited = createKey(server, account.id, "limited", { limit: { credits: 10, per: "total" } });
  const other = createKey(server, account.id, "other");
  const digest = hashApiKeySync(limited.key);
  await ledger.debit(account.id, { requestId: "r1", keyId: limited.keyId, endpoint: "/v1/tweets/{id}", credits: 10 });
  expect(await ledger.checkKey(digest)).toMatchObject({ allowance: { remaining: 0 } });

  // One batch: the refund's credits and the other key's charge leave the balance where it was.
  await Promise.all([
    ledger.refund(account.id, "r1"),
    ledger.debit(account.id, { requestId: "r2", keyId: other.keyId, endpoint: "/v1/tweets/{id}", credits: 10 }),
  ]);
  expect(await ledger.checkKey(digest)).toMatchObject({ balance: 90, allowance: { remaining: 10 } });
  close();
});

test("a limited key's own charges count in its kept check, and a day limit starts over at midnight", async () => {
  const { server, close } = twoConnections();
  let now = Date.UTC(2026, 10, 24, 23, 59, 59, 900);
  const ledger = new SqliteLedger(server, { now: () => now });
  const account = createAccount(server, "Ada", 100);
  const { key, keyId } = createKey(server, account.id, "daily", { limit: { credits: 5, per: "day" } });
  const digest = hashApiKeySync(key);
  expect(await ledger.checkKey(digest)).toMatchObject({ allowance: { remaining: 5 } });
  await ledger.debit(account.id, { requestId: "r1", keyId, endpoint: "/v1/tweets/{id}", credits: 5 });
  expect(await ledger.checkKey(digest)).toMatchObject({ balance: 95, allowance: { remaining: 0 } });
  now += 200;
  expect(await ledger.checkKey(digest)).toMatchObject({ balance: 95, allowance: { remaining: 5 } });
  close();
});
