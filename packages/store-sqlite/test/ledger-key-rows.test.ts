// checkKey keeps key rows between requests (ledger/key-rows.ts): a change made by this connection or by
// any other (another worker, the operator CLI) shows in the very next check.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createAccount,
  createKey,
  grantCredits,
  hashApiKeySync,
  openDatabase,
  revokeKey,
  SqliteLedger,
} from "../src/index.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function twoConnections() {
  const dir = mkdtempSync(join(tmpdir(), "key-rows-"));
  dirs.push(dir);
  const path = join(dir, "social.db");
  return { server: openDatabase(path), cli: openDatabase(path) };
}

test("a grant and a revocation made by another connection show in the next check", async () => {
  const { server, cli } = twoConnections();
  const ledger = new SqliteLedger(server);
  const account = createAccount(server, "Ada", 100);
  const { key, keyId } = createKey(server, account.id, "k");
  const digest = hashApiKeySync(key);
  expect(await ledger.checkKey(digest)).toMatchObject({ status: "active", balance: 100 });
  expect(await ledger.checkKey(digest)).toMatchObject({ status: "active", balance: 100 });

  grantCredits(cli, account.id, 50);
  expect(await ledger.checkKey(digest)).toMatchObject({ status: "active", balance: 150 });
  revokeKey(cli, keyId);
  expect(await ledger.checkKey(digest)).toMatchObject({ status: "revoked" });
  cli.close();
  server.close();
});

test("a debit's balance shows in the next check, and a key another connection creates is known at once", async () => {
  const { server, cli } = twoConnections();
  const ledger = new SqliteLedger(server);
  const account = createAccount(server, "Ada", 100);
  const { key } = createKey(server, account.id, "first");
  const digest = hashApiKeySync(key);
  const check = await ledger.checkKey(digest);
  if (check.status !== "active") throw new Error("the key is active");
  await ledger.debit(account.id, { requestId: "r1", keyId: check.keyId, endpoint: "/v1/tweets/{id}", credits: 7 });
  expect(await ledger.checkKey(digest)).toMatchObject({ status: "active", balance: 93 });

  const { key: second } = createKey(cli, account.id, "second");
  expect(await ledger.checkKey(hashApiKeySync(second))).toMatchObject({ status: "active", balance: 93 });
  cli.close();
  server.close();
});
