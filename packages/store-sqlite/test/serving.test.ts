// A serving connection (durability/serving.ts): its WAL stays bounded with no checkpoint in any commit,
// its file is given back when the server idles, and a charge is reported only after the fsync that
// covers it, shared by the batches that commit while one runs.

import type { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { answeringOutages } from "@social/core";
import { commitSyncOf } from "../src/durability/serving.ts";
import { WalSync, WalSyncError } from "../src/durability/wal-sync.ts";
import { GroupCommit } from "../src/group-commit.ts";
import {
  closeDatabase,
  createAccount,
  createKey,
  isDatabaseOutage,
  ledgerPathOf,
  openDatabase,
  SqliteLedger,
} from "../src/index.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function databaseFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "serving-"));
  dirs.push(dir);
  return join(dir, "social.db");
}

/** The size of the ledger file's WAL, which charges write. */
const walSize = (path: string) => statSync(`${ledgerPathOf(path)}-wal`, { throwIfNoEntry: false })?.size ?? 0;

/** Charges in `waves` waves of 64, the way a loaded server's group commits arrive: the WAL's peak size. */
async function charge(db: Database, path: string, waves: number): Promise<{ peak: number; charges: number }> {
  const account = createAccount(db, "Ada", 1e12);
  const { keyId } = createKey(db, account.id, "load");
  const ledger = new SqliteLedger(db);
  let peak = 0;
  let charges = 0;
  const wave = `${account.id}-`;
  for (let n = 0; n < waves; n++) {
    const debits = Array.from({ length: 64 }, () =>
      ledger.debit(account.id, { requestId: `${wave}${charges++}`, keyId, endpoint: "/v1/tweets/{id}", credits: 1 }),
    );
    await Promise.all(debits);
    peak = Math.max(peak, walSize(path));
  }
  return { peak, charges };
}

const MB = 1024 * 1024;
/** 96,000 charges: about 90 MB of WAL frames if none were copied back, past the 64 MB target. */
const LOAD_WAVES = 1500;

describe("a serving connection's WAL", () => {
  test("stays within 64 MB under a stream of charges that would take it past, though no commit checkpoints it", async () => {
    const path = databaseFile();
    const db = openDatabase(path, { serving: true });
    expect(db.query("PRAGMA wal_autocheckpoint").get()).toEqual({ wal_autocheckpoint: 0 });
    const { peak } = await charge(db, path, LOAD_WAVES);
    await closeDatabase(db);
    expect(peak).toBeLessThan(64 * MB);

    // The same charges on a connection that checkpoints nowhere: what the checkpointer keeps it from.
    const unkept = databaseFile();
    const bare = openDatabase(unkept);
    bare.run("PRAGMA wal_autocheckpoint = 0");
    const grown = await charge(bare, unkept, LOAD_WAVES);
    bare.close();
    expect(grown.peak).toBeGreaterThan(64 * MB);
  }, 60_000);

  test("is given back to the file system once the server idles", async () => {
    const path = databaseFile();
    const db = openDatabase(path, { serving: true });
    await charge(db, path, 100);
    expect(walSize(path)).toBeGreaterThan(0);
    const idleSince = performance.now();
    while (walSize(path) > 0 && performance.now() - idleSince < 10_000) await Bun.sleep(50);
    expect(walSize(path)).toBe(0);
    // And the connection serves on after it.
    expect((await charge(db, path, 5)).charges).toBe(320);
    await closeDatabase(db);
  }, 30_000);
});

/** A serving connection under FULL with an account of 100 credits and its key, and the connection's WAL sync. */
function servingFull() {
  const path = databaseFile();
  const db = openDatabase(path, { serving: true, synchronous: "FULL" });
  const account = createAccount(db, "Ada", 100);
  const { keyId } = createKey(db, account.id, "k");
  const walSync = commitSyncOf(db) as WalSync;
  return { path, db, account, keyId, walSync, sync: walSync.sync.bind(walSync) };
}

describe("a serving connection under FULL", () => {
  test("reports a charge only once the WAL sync that covers it has finished", async () => {
    const { path, db, account, keyId, walSync, sync } = servingFull();
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    walSync.sync = () => held.then(sync);
    const ledger = new SqliteLedger(db);
    let reported = false;
    const debit = ledger
      .debit(account.id, { requestId: "r1", keyId, endpoint: "/v1/tweets/{id}", credits: 3 })
      .then((result) => {
        reported = true;
        return result;
      });
    // Committed (another connection sees it) but not reported while its fsync has not finished.
    const observer = openDatabase(path);
    while (observer.query("SELECT 1 FROM usage WHERE request_id = 'r1'").get() === null) await Bun.sleep(5);
    await Bun.sleep(50);
    expect(reported).toBe(false);
    release();
    expect(await debit).toEqual({ ok: true, remaining: 97 });
    observer.close();
    await closeDatabase(db);
  });

  test("commits each group under NORMAL and leaves the connection at FULL for its other writes, also after a batch that fails", async () => {
    const { db } = servingFull();
    // Prepared anew each time: SQLite evaluates this pragma when it is prepared.
    const level = () => {
      const statement = db.prepare<{ synchronous: number }, []>("PRAGMA ledger.synchronous");
      try {
        return statement.get()?.synchronous;
      } finally {
        statement.finalize();
      }
    };
    const commits = new GroupCommit<string, number | undefined>(db, (writes) =>
      writes.map((write) => {
        if (write === "fail") throw new Error("refused");
        return { result: level() };
      }),
    );
    const [NORMAL, FULL] = [1, 2];
    expect(await commits.submit("first")).toBe(NORMAL);
    expect(level()).toBe(FULL);
    expect(await commits.submit("second")).toBe(NORMAL);
    expect(level()).toBe(FULL);
    expect(commits.submit("fail")).rejects.toThrow("refused");
    await commits.submit("fail").catch(() => {});
    expect(level()).toBe(FULL);
    await closeDatabase(db);
  });
});

describe("WalSync", () => {
  test("commits made while a sync runs share the next one, which starts when it ends", async () => {
    const path = databaseFile();
    const db = openDatabase(path);
    const walSync = new WalSync(`${path}-wal`);
    const running = walSync.sync();
    const next = [walSync.sync(), walSync.sync(), walSync.sync()];
    expect(next[1]).toBe(next[0] as Promise<void>);
    expect(next[2]).toBe(next[0] as Promise<void>);
    expect(next[0]).not.toBe(running);
    await Promise.all([running, ...next]);
    expect(walSync.sync()).not.toBe(next[0] as Promise<void>);
    await walSync.close();
    db.close();
  });

  test("a flush the file system refuses is a WalSyncError, and every later one fails with it untried", async () => {
    // fdatasync is EINVAL on a character device: a real refusal, as a failing disk's EIO would be.
    const walSync = new WalSync("/dev/null");
    const first = await walSync.sync().catch((error: unknown) => error);
    expect(first).toBeInstanceOf(WalSyncError);
    // The same error, not a new refusal: after one failure no flush can vouch for the frames before it.
    expect(await walSync.sync().catch((error: unknown) => error)).toBe(first);
    await walSync.close();
  });
});

describe("a charge whose WAL sync fails", () => {
  test("is answered as an outage and given back, so nobody pays for an answer they did not get", async () => {
    const { path, db, account, keyId, walSync, sync } = servingFull();
    const failing = new WalSync("/dev/null");
    walSync.sync = () => failing.sync();
    // As the composition hands the ledger out (packages/composition), answering outages.
    const ledger = answeringOutages(new SqliteLedger(db), isDatabaseOutage);
    const charge = ledger.debit(account.id, { requestId: "r1", keyId, endpoint: "/v1/tweets/{id}", credits: 3 });
    expect(charge).rejects.toMatchObject({ code: "service_unavailable" });
    await charge.catch(() => {});
    walSync.sync = sync;
    const observer = openDatabase(path);
    const refundOf = () => observer.query("SELECT credits FROM grants WHERE refund_of = 'r1'").get();
    while (refundOf() === null) await Bun.sleep(5);
    expect(refundOf()).toEqual({ credits: 3 });
    expect(await ledger.balance(account.id)).toBe(100);
    observer.close();
    await failing.close();
    await closeDatabase(db);
  });
});

describe("closing a serving connection", () => {
  test("keeps a process with nothing else to wait for alive until it is closed, and what follows runs", () => {
    const path = databaseFile();
    // As a server that fails before it serves closes its database and then says why: no top-level
    // await, which would itself keep the process alive.
    const script = join(path, "..", "close.ts");
    writeFileSync(
      script,
      `import { closeDatabase, openDatabase } from ${JSON.stringify(join(import.meta.dir, "../src/index.ts"))};
void (async () => {
  await closeDatabase(openDatabase(${JSON.stringify(path)}, { serving: true }));
  console.log("closed");
  process.exit(7);
})();
`,
    );
    const child = Bun.spawnSync([process.execPath, script], { stdin: "ignore", timeout: 30_000 });
    expect({ exitCode: child.exitCode, stdout: child.stdout.toString() }).toEqual({ exitCode: 7, stdout: "closed\n" });
  });
});
