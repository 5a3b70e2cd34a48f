// The ledger's tables live in a file of their own beside the world (src/ledger-file.ts): another
// worker's charges leave this worker's world untouched, and a database from before the split moves its
// ledger out once, whole, restartably, and never over a ledger of another origin.
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "../src/connection.ts";
import {
  createAccount,
  createKey,
  hashApiKeySync,
  migrate,
  openDatabase,
  SqliteLedger,
  SqliteMonitors,
} from "../src/index.ts";
import { ledgerPathOf, migrateLedger } from "../src/ledger-file.ts";
import { worldMigrations } from "../src/world/schema.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function databaseFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "ledger-file-"));
  dirs.push(dir);
  return join(dir, "social.db");
}

const charge = (requestId: string, keyId: string) => ({ requestId, keyId, endpoint: "/v1/tweets/{id}", credits: 1 });

/**
 * A database as versions before the ledger's own file made it: every table in the one file, with two
 * charges and a third refunded (a grant naming its usage row), and a monitor with a match.
 */
async function singleFileDatabase(path: string): Promise<{ accountId: string; key: string }> {
  const db = connect(path, "FULL", 1024);
  migrate(db, "world", worldMigrations);
  migrateLedger(db);
  const account = createAccount(db, "Ada", 100);
  const { key, keyId } = createKey(db, account.id, "k");
  const ledger = new SqliteLedger(db);
  await ledger.debit(account.id, charge("r1", keyId));
  await ledger.debit(account.id, charge("r2", keyId));
  await ledger.debit(account.id, charge("refunded", keyId));
  await ledger.refund(account.id, "refunded");
  const monitors = new SqliteMonitors(db);
  const monitor = { id: "mon_1", accountId: account.id, keyId, query: "coffee", delivery: { type: "pull" } } as const;
  await monitors.create({ ...monitor, secret: "s", now: 1 }, 100);
  await monitors.recordMatches([{ seq: 1, tweetId: "7" }], [{ monitorId: "mon_1", tweetId: "7" }], 2);
  db.close();
  return { accountId: account.id, key };
}

function tablesIn(path: string): string[] {
  const db = new Database(path, { readonly: true });
  try {
    return (
      db.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]
    ).map((row) => row.name);
  } finally {
    db.close();
  }
}

function balanceIn(ledgerPath: string, accountId: string): number | undefined {
  const db = new Database(ledgerPath, { readonly: true });
  try {
    return (db.query("SELECT balance FROM accounts WHERE id = ?").get(accountId) as { balance: number } | null)
      ?.balance;
  } finally {
    db.close();
  }
}

describe("the ledger's own file", () => {
  test("another connection's charge leaves this connection's world pages unchanged", async () => {
    const path = databaseFile();
    const server = openDatabase(path);
    const other = openDatabase(path);
    const account = createAccount(server, "Ada", 100);
    const { keyId } = createKey(server, account.id, "k");
    const version = (schema: string) =>
      (server.query(`PRAGMA ${schema}.data_version`).get() as { data_version: number }).data_version;
    const [world, ledger] = [version("main"), version("ledger")];
    await new SqliteLedger(other).debit(account.id, charge("r1", keyId));

    // data_version moves when another connection commits to the file: SQLite then drops the pages it
    // kept of that file, and only of that file.
    expect(version("main")).toBe(world);
    expect(version("ledger")).not.toBe(ledger);
    expect(tablesIn(path)).not.toContain("accounts");
    expect(tablesIn(ledgerPathOf(path))).toContain("accounts");
    server.close();
    other.close();
  });
});

/** The tables of each file, with what the move leaves of itself. */
const filesTables = (path: string) => ({ world: tablesIn(path), ledger: tablesIn(ledgerPathOf(path)) });

/** The keyId of the one key a database holds. */
function onlyKeyId(db: Database): string {
  return (db.query("SELECT id FROM api_keys").get() as { id: string }).id;
}

describe("a database from before the ledger's own file", () => {
  test("moves its ledger out whole on first open, ending with the tables of a new database, and charges go on", async () => {
    const path = databaseFile();
    const { accountId, key } = await singleFileDatabase(path);

    const db = openDatabase(path);
    const ledger = new SqliteLedger(db);
    expect(await ledger.checkKey(hashApiKeySync(key))).toMatchObject({ status: "active", balance: 98 });
    expect(db.query("SELECT request_id FROM usage ORDER BY request_id").all()).toEqual([
      { request_id: "r1" },
      { request_id: "r2" },
      { request_id: "refunded" },
    ]);
    expect(db.query("SELECT refund_of FROM grants WHERE refund_of IS NOT NULL").all()).toEqual([
      { refund_of: "refunded" },
    ]);
    expect(await new SqliteMonitors(db).matches("mon_1", 0, 10)).toMatchObject([{ seq: 1, tweetId: "7" }]);
    const keyId = onlyKeyId(db);
    // A request id already charged stays charged once.
    await expect(ledger.debit(accountId, charge("r2", keyId))).rejects.toMatchObject({ code: "duplicate_request" });
    expect(await ledger.debit(accountId, charge("r3", keyId))).toEqual({ ok: true, remaining: 97 });
    db.close();
    expect(balanceIn(ledgerPathOf(path), accountId)).toBe(97);

    const fresh = databaseFile();
    openDatabase(fresh).close();
    const moved = filesTables(path);
    expect(moved.world).toEqual(tablesIn(fresh));
    expect(moved.ledger).toEqual([...tablesIn(ledgerPathOf(fresh)), "ledger_move"].sort());
  });

  test("a move cut short after its copy was renamed into place is copied again from the world's tables", async () => {
    const path = databaseFile();
    const { accountId } = await singleFileDatabase(path);
    const before = `${path}.before`;
    copyFileSync(path, before);
    openDatabase(path).close();
    const moved = new Database(ledgerPathOf(path));
    const { token } = moved.query("SELECT token FROM ledger_move").get() as { token: string };
    moved.close();
    // The world's file as a move cut short leaves it: the old tables and the move's token. A process
    // of the previous release then charges into those tables.
    copyFileSync(before, path);
    const previousRelease = connect(path, "FULL", 1024);
    previousRelease.run("CREATE TABLE ledger_move (token TEXT NOT NULL)");
    previousRelease.run("INSERT INTO ledger_move VALUES (?)", [token]);
    await new SqliteLedger(previousRelease).debit(accountId, charge("late", onlyKeyId(previousRelease)));
    previousRelease.close();

    const db = openDatabase(path);
    expect(db.query("SELECT count(*) AS n FROM usage WHERE request_id = 'late'").get()).toEqual({ n: 1 });
    db.close();
    expect(tablesIn(path)).not.toContain("accounts");
    expect(balanceIn(ledgerPathOf(path), accountId)).toBe(97);
  });

  test("a move cut short while copying leaves a half-built copy aside, and starts again", async () => {
    const path = databaseFile();
    const { accountId } = await singleFileDatabase(path);
    writeFileSync(`${ledgerPathOf(path)}-moving`, "half of a database");
    writeFileSync(ledgerPathOf(path), "");

    openDatabase(path).close();
    expect(balanceIn(ledgerPathOf(path), accountId)).toBe(98);
    expect(existsSync(`${ledgerPathOf(path)}-moving`)).toBe(false);
  });

  test("beside a ledger file of another origin it is refused, and neither file changes", async () => {
    const path = databaseFile();
    const { accountId } = await singleFileDatabase(path);
    const elsewhere = databaseFile();
    const other = openDatabase(elsewhere);
    const stranger = createAccount(other, "Grace", 5);
    other.close();
    copyFileSync(ledgerPathOf(elsewhere), ledgerPathOf(path));

    expect(() => openDatabase(path)).toThrow(/already holds a ledger/);
    expect(tablesIn(path)).toContain("accounts");
    expect(balanceIn(path, accountId)).toBe(98);
    expect(balanceIn(ledgerPathOf(path), stranger.id)).toBe(5);
    expect(balanceIn(ledgerPathOf(path), accountId)).toBeUndefined();
  });

  test("processes opening it at once: one moves the ledger, the others wait and find it moved", async () => {
    const path = databaseFile();
    const { accountId } = await singleFileDatabase(path);
    const open = `import { openDatabase } from ${JSON.stringify(join(import.meta.dir, "../src/index.ts"))}; openDatabase(${JSON.stringify(path)}).close();`;
    const processes = Array.from({ length: 4 }, () =>
      Bun.spawn([process.execPath, "-e", open], { stdout: "inherit", stderr: "inherit" }),
    );
    expect(await Promise.all(processes.map((child) => child.exited))).toEqual([0, 0, 0, 0]);
    expect(tablesIn(path)).not.toContain("accounts");
    expect(tablesIn(path)).not.toContain("ledger_move");
    expect(balanceIn(ledgerPathOf(path), accountId)).toBe(98);
    const ledger = new Database(ledgerPathOf(path), { readonly: true });
    expect(ledger.query("SELECT count(*) AS n FROM usage").get()).toEqual({ n: 3 });
    ledger.close();
  }, 30_000);
});

describe("a table in both files", () => {
  test("is refused at open, naming it, since one would hide the other", () => {
    const path = databaseFile();
    openDatabase(path).close();
    const world = new Database(path);
    world.run("CREATE TABLE usage (request_id TEXT)");
    world.close();
    expect(() => openDatabase(path)).toThrow(/both hold usage/);
  });
});
