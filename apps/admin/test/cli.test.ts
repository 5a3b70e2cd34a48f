// The CLI as an operator runs it: a real process on the database DATABASE_URL names, a SQLite file or a
// real PostgreSQL server.
import type { Database } from "bun:sqlite";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openBackend } from "@social/composition";
import { MAX_ACTIVE_KEYS_PER_ACCOUNT } from "@social/core";
import { type PostgresServer, startPostgres } from "@social/store-postgres/testing";
import {
  createKey as createKeyInDatabase,
  hashApiKeySync,
  openDatabase,
  readWorldMeta,
  SqliteLedger,
} from "@social/store-sqlite";
import { runAdmin } from "@social/testing";
import { SQL } from "bun";

let dir: string;
let dbFile: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "admin-cli-"));
  // A directory that does not exist yet: the CLI creates it, as it does data/ on first use.
  dbFile = join(dir, "data", "social.db");
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return adminOn(`file:${dbFile}`, ...args);
}

function adminOn(databaseUrl: string, ...args: string[]) {
  return runAdmin(databaseUrl, args);
}

function lastLine(text: string): string {
  return text.trimEnd().split("\n").at(-1) ?? "";
}

async function withDb<T>(read: (db: Database, ledger: SqliteLedger) => T | Promise<T>): Promise<T> {
  const db = openDatabase(`file:${dbFile}`);
  try {
    return await read(db, new SqliteLedger(db));
  } finally {
    db.close();
  }
}

/** Creates an account and key through the CLI; returns the key and what the ledger says about it. */
async function createKey(...options: string[]): Promise<{ key: string; accountId: string; keyId: string }> {
  const result = await admin("keys", "create", ...options);
  expect(result.code).toBe(0);
  const key = lastLine(result.stdout);
  const check = await withDb((_, ledger) => ledger.checkKey(hashApiKeySync(key)));
  if (check.status !== "active") throw new Error(`created key is ${check.status}`);
  return { key, accountId: check.accountId, keyId: check.keyId };
}

describe("keys create", () => {
  test("prints a key on the last line that the ledger accepts, with 1000 credits", async () => {
    const result = await admin("keys", "create", "--name", "Ada");
    expect(result.code).toBe(0);
    const key = lastLine(result.stdout);
    expect(key).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
    await withDb(async (db, ledger) => {
      const check = await ledger.checkKey(hashApiKeySync(key));
      expect(check.status).toBe("active");
      if (check.status !== "active") return;
      expect(await ledger.balance(check.accountId)).toBe(1000);
      expect(db.query("SELECT name FROM accounts").all()).toEqual([{ name: "Ada" }]);
    });
  });

  test("--credits sets the starting balance", async () => {
    const { accountId } = await createKey("--credits", "42");
    expect(await withDb((_, ledger) => ledger.balance(accountId))).toBe(42);
  });

  test("--account adds a key to an existing account", async () => {
    const first = await createKey();
    const second = await createKey("--account", first.accountId, "--name", "server");
    expect(second.accountId).toBe(first.accountId);
    expect(second.keyId).not.toBe(first.keyId);
    expect(await withDb((_, ledger) => ledger.balance(first.accountId))).toBe(1000);
  });

  test("--account with an unknown account fails without writing a key", async () => {
    await createKey();
    const result = await admin("keys", "create", "--account", "acct_missing");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("no account acct_missing");
    expect(await withDb((db) => db.query("SELECT count(*) AS n FROM api_keys").get())).toEqual({ n: 1 });
  });

  test(`--account refuses a key past the cap of ${MAX_ACTIVE_KEYS_PER_ACCOUNT} active keys, and writes none`, async () => {
    const { accountId } = await createKey();
    await withDb((db) => {
      for (let i = 1; i < MAX_ACTIVE_KEYS_PER_ACCOUNT; i++) createKeyInDatabase(db, accountId, `key ${i}`);
    });
    const result = await admin("keys", "create", "--account", accountId);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`already has ${MAX_ACTIVE_KEYS_PER_ACCOUNT} active keys`);
    expect(result.stdout).toBe("");
    const count = await withDb((db) => db.query("SELECT count(*) AS n FROM api_keys").get());
    expect(count).toEqual({ n: MAX_ACTIVE_KEYS_PER_ACCOUNT });
  });
});

describe("keys create with a limit and an expiry", () => {
  test("--limit, --per and --expires are kept, checked by the ledger and shown by keys list", async () => {
    const { key, keyId } = await createKey("--limit", "500", "--per", "day", "--expires", "2099-01-31");
    const check = await withDb((_, ledger) => ledger.checkKey(hashApiKeySync(key)));
    expect(check).toMatchObject({
      allowance: { credits: 500, per: "day", remaining: 500 },
      expiresAt: Date.UTC(2099, 0, 31),
    });
    const listed = await admin("keys", "list");
    const row = listed.stdout.split("\n").find((line) => line.startsWith(keyId)) ?? "";
    expect(row).toContain("500 credits per UTC day, 500 left");
    expect(row).toContain("2099-01-31 00:00:00");
    const unlimited = await createKey("--account", check.status === "active" ? check.accountId : "");
    const plain = (await admin("keys", "list")).stdout.split("\n").find((line) => line.startsWith(unlimited.keyId));
    expect(plain).toContain("no limit");
  });

  test("a bad limit, period or expiry is a usage error that writes nothing", async () => {
    for (const [options, message] of [
      [["--limit", "0"], "whole number of credits of at least 1"],
      [["--limit", "ten"], "whole number of credits"],
      [["--limit", "5", "--per", "week"], 'per "total" or per "day"'],
      [["--per", "day"], "needs a limit"],
      [["--expires", "31/01/2099"], "a date like 2027-01-31"],
      [["--expires", "2001-01-01"], "has already passed"],
    ] as const) {
      const result = await admin("keys", "create", ...options);
      expect({ options, code: result.code }).toEqual({ options, code: 2 });
      expect(result.stderr).toContain(message);
    }
    expect(existsSync(dbFile)).toBe(false);
  });
});

describe("keys revoke and list", () => {
  test("revokes by key and by key id", async () => {
    const byKey = await createKey();
    const byId = await createKey();
    expect((await admin("keys", "revoke", byKey.key)).code).toBe(0);
    expect((await admin("keys", "revoke", byId.keyId)).code).toBe(0);
    await withDb(async (_, ledger) => {
      expect(await ledger.checkKey(hashApiKeySync(byKey.key))).toEqual({ status: "revoked", keyId: byKey.keyId });
      expect(await ledger.checkKey(hashApiKeySync(byId.key))).toEqual({ status: "revoked", keyId: byId.keyId });
    });
  });

  test("an unknown key is an error", async () => {
    await createKey();
    const result = await admin("keys", "revoke", "key_missing");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("no key matches key_missing");
  });

  test("list shows ids and prefixes, never secrets", async () => {
    const { key, keyId } = await createKey();
    const result = await admin("keys", "list");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(keyId);
    expect(result.stdout).toContain(key.slice(0, 12));
    expect(result.stdout).not.toContain(key);
  });
});

describe("credits and usage", () => {
  test("credits grant adds to the balance", async () => {
    const { accountId } = await createKey();
    const result = await admin("credits", "grant", accountId, "250");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("balance 1250");
    expect(await withDb((_, ledger) => ledger.balance(accountId))).toBe(1250);
  });

  test("credits grant --plan records a purchase of that plan as the grant's reason", async () => {
    const { accountId } = await createKey();
    expect((await admin("credits", "grant", accountId, "10000", "--plan", "Starter")).code).toBe(0);
    const reasons = await withDb((db) =>
      db
        .query<{ reason: string }, [string]>("SELECT reason FROM grants WHERE account_id = ? ORDER BY id")
        .all(accountId),
    );
    expect(reasons.at(-1)).toEqual({ reason: "purchase: Starter" });
    const both = await admin("credits", "grant", accountId, "1", "--plan", "Starter", "--reason", "gift");
    expect(both.code).not.toBe(0);
    expect(both.stderr).toContain("--reason or --plan, not both");
  });

  test("credits grant to an unknown account fails", async () => {
    await createKey();
    const result = await admin("credits", "grant", "acct_missing", "5");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("no account acct_missing");
  });

  test("credits grant past the most an account can hold is one line naming the limit, not a stack", async () => {
    const { accountId } = await createKey();
    const result = await admin("credits", "grant", accountId, "9007199254740991");
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `error: ${accountId} holds 1000 credits: 9007199254740991 more would pass 9007199254740991, the most an account can hold\n`,
    );
    expect(await withDb((_, ledger) => ledger.balance(accountId))).toBe(1000);
  });

  test("usage shows the balance, today's spend and the latest requests", async () => {
    const { accountId, keyId } = await createKey();
    await withDb(async (_, ledger) => {
      await ledger.debit(accountId, { requestId: "req_one", keyId, endpoint: "/v1/search/recent", credits: 21 });
      await ledger.debit(accountId, { requestId: "req_two", keyId, endpoint: "/v1/tweets/{id}", credits: 1 });
    });
    const result = await admin("usage", accountId, "--days", "7");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("balance 978 credits");
    const today = new Date().toISOString().slice(0, 10);
    expect(result.stdout).toMatch(new RegExp(`${today}\\s+22\\s+2 req`));
    expect(result.stdout.indexOf("req_two")).toBeLessThan(result.stdout.indexOf("req_one"));
    expect(result.stdout).toContain("/v1/search/recent");
  });
});

describe("fixtures build", () => {
  test("builds the world with a progress bar and counts, leaving the ledger as it was", async () => {
    const { key, accountId } = await createKey("--credits", "77");
    const result = await admin("fixtures", "build", "--tweets", "1000", "--seed", "cli-test");
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("100%");
    expect(result.stdout).toMatch(/built world "cli-test"/);
    expect(result.stdout).toMatch(/tweet\s+1,000\n/);
    await withDb(async (db, ledger) => {
      expect(readWorldMeta(db)?.counts.tweet).toBe(1000);
      expect((await ledger.checkKey(hashApiKeySync(key))).status).toBe("active");
      expect(await ledger.balance(accountId)).toBe(77);
    });
  }, 60_000);
});

describe("db migrate", () => {
  test("creates the SQLite database with its schema, and says so; again, it has nothing to do", async () => {
    for (let run = 0; run < 2; run++) {
      const result = await admin("db", "migrate");
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
      expect(result.stdout).toBe(`SQLite ${dbFile}: schema up to date\n`);
    }
    await withDb((db) => {
      // Each file records its own components: the world's, and the ledger's beside it.
      const components = (schema: string) =>
        db.query(`SELECT component FROM ${schema}.schema_migrations ORDER BY component`).all();
      expect(components("main")).toEqual([{ component: "world" }]);
      expect(components("ledger")).toEqual([
        { component: "dashboard" },
        { component: "ledger" },
        { component: "monitors" },
      ]);
    });
  });
});

describe("bad arguments", () => {
  const cases: string[][] = [
    [],
    ["nonsense"],
    ["keys"],
    ["keys", "create", "--credits", "-5"],
    ["keys", "create", "--credits", "lots"],
    ["keys", "create", "--unknown"],
    ["keys", "create", "extra"],
    ["keys", "create", "--account", "acct_x", "--credits", "5"],
    ["keys", "revoke"],
    ["keys", "revoke", "a", "b"],
    ["credits", "grant", "acct_x"],
    ["credits", "grant", "acct_x", "0"],
    ["credits", "grant", "acct_x", "1.5"],
    ["credits", "take", "acct_x", "5"],
    ["usage"],
    ["usage", "acct_x", "--days", "0"],
    ["fixtures", "build", "--tweets", "many"],
    ["fixtures", "build", "--seed", ""],
    ["fixtures", "build", "--tweets", "999"],
    ["fixtures", "rebuild"],
    ["db"],
    ["db", "upgrade"],
    ["db", "migrate", "now"],
    ["db", "migrate", "--force"],
  ];

  test.each(cases.map((args) => [args.join(" ") || "(no arguments)", args] as const))(
    "%s exits 2 with the usage text and writes nothing",
    async (_, args) => {
      const result = await admin(...args);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("Usage: bun run admin");
      expect(result.stdout).toBe("");
      expect(existsSync(dbFile)).toBe(false);
    },
  );
});

describe("a DATABASE_URL no adapter serves", () => {
  test("is one line naming the scheme, exit 1, and nothing written", async () => {
    const result = await adminOn("mysql://root@127.0.0.1/social", "keys", "list");
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toStartWith("error: DATABASE_URL has the scheme mysql:, which no adapter serves");
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stdout).toBe("");
  });
});

describe("on PostgreSQL", () => {
  let postgres: PostgresServer;
  let databases = 0;
  beforeAll(async () => {
    postgres = await startPostgres();
  });
  afterAll(() => postgres.stop());

  test("db migrate brings an empty database to every component's schema, naming it without the password", async () => {
    const url = await postgres.createDatabase(`migrate_${++databases}`);
    const withPassword = url.replace("postgres://app@", "postgres://app:hunter2@");
    const result = await adminOn(withPassword, "db", "migrate");
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
    expect(result.stdout).toBe(`PostgreSQL ${new URL(url).host}/migrate_${databases}: schema up to date\n`);
    const sql = new SQL(url, { max: 1 });
    try {
      const rows = await sql`SELECT component FROM schema_migrations ORDER BY component`;
      expect(rows.map((row: { component: string }) => row.component)).toEqual([
        "accounts",
        "credit_shards",
        "dashboard",
        "ledger",
        "monitors",
        "settings",
        "world",
      ]);
    } finally {
      await sql.close();
    }
    expect((await adminOn(url, "db", "migrate")).code).toBe(0);
  });

  test("keys create, credits grant and fixtures build (with its progress bar) work as on SQLite", async () => {
    const url = await postgres.createDatabase(`commands_${++databases}`);
    const created = await adminOn(url, "keys", "create", "--credits", "40");
    expect(created.code).toBe(0);
    const key = lastLine(created.stdout);
    const backend = await openBackend(url, { max: 1 });
    try {
      const check = await backend.ledger.checkKey(hashApiKeySync(key));
      if (check.status !== "active") throw new Error(`created key is ${check.status}`);
      const granted = await adminOn(url, "credits", "grant", check.accountId, "2");
      expect(granted.stdout).toContain("balance 42");
      const built = await adminOn(url, "fixtures", "build", "--tweets", "1000", "--seed", "cli-test");
      expect(built.code).toBe(0);
      expect(built.stderr).toContain("100%");
      expect(built.stdout).toMatch(/tweet\s+1,000\n/);
      expect(await backend.hasWorld()).toBe(true);
      expect(await backend.ledger.balance(check.accountId)).toBe(42);
      const listed = await adminOn(url, "keys", "list");
      expect(listed.stdout).toContain(check.keyId);
    } finally {
      await backend.close();
    }
  }, 60_000);

  test("a server that cannot be reached is one line naming it, exit 1", async () => {
    const result = await adminOn("postgres://app:hunter2@127.0.0.1:1/social", "db", "migrate");
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toStartWith("error: PostgreSQL 127.0.0.1:1/social cannot be reached");
    expect(result.stderr).not.toContain("hunter2");
    expect(result.stdout).toBe("");
  });
});
