// Debits per second with 64 concurrent callers (as 64 open HTTP connections would issue them), on a
// temporary database file: one transaction per debit against SqliteLedger's group commit, under the
// project's synchronous=NORMAL and under synchronous=FULL (an fsync per commit).
//
//   bun packages/store-sqlite/bench/ledger.ts [debits per run, default 40000]
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount, createKey, openDatabase, SqliteLedger } from "../src/index.ts";

const CALLERS = 64;
const DEBITS = Number(process.argv[2] ?? 40_000);

type Debit = (accountId: string, keyId: string, requestId: string) => Promise<unknown>;

/** The baseline: what a handler does without batching, one BEGIN IMMEDIATE … COMMIT per request. */
function transactionPerDebit(db: Database): Debit {
  const charge = db.prepare<{ balance: number }, [number, string]>(
    "UPDATE accounts SET balance = balance - ?1 WHERE id = ?2 AND balance >= ?1 RETURNING balance",
  );
  const record = db.prepare<void, [string, string, string, string, number, number]>(
    "INSERT INTO usage (request_id, key_id, account_id, endpoint, credits, created_at) VALUES (?, ?, ?, ?, ?, ?)",
  );
  const debit = db.transaction((accountId: string, keyId: string, requestId: string) => {
    const charged = charge.get(1, accountId);
    if (charged) record.run(requestId, keyId, accountId, "/v1/tweets/{id}", 1, Date.now());
    return charged;
  });
  return async (accountId, keyId, requestId) => debit.immediate(accountId, keyId, requestId);
}

function groupCommit(db: Database): Debit {
  const ledger = new SqliteLedger(db);
  return (accountId, keyId, requestId) =>
    ledger.debit(accountId, { requestId, keyId, endpoint: "/v1/tweets/{id}", credits: 1 });
}

async function measure(synchronous: "NORMAL" | "FULL", makeDebit: (db: Database) => Debit): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "ledger-bench-"));
  const db = openDatabase(`file:${join(dir, "social.db")}`, { synchronous });
  try {
    const account = createAccount(db, "bench", 1_000_000_000);
    const { keyId } = createKey(db, account.id, "bench");
    const debit = makeDebit(db);
    let issued = 0;
    const caller = async () => {
      while (issued < DEBITS) await debit(account.id, keyId, `r${issued++}`);
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: CALLERS }, caller));
    return DEBITS / ((performance.now() - started) / 1000);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const format = (perSecond: number) => `${Math.round(perSecond).toLocaleString("en-US")}/s`.padStart(12);

console.log(`${DEBITS} debits of 1 credit, ${CALLERS} concurrent callers, bun ${Bun.version}`);
console.log("synchronous  transaction/debit  group commit  ratio");
for (const synchronous of ["NORMAL", "FULL"] as const) {
  const single = await measure(synchronous, transactionPerDebit);
  const grouped = await measure(synchronous, groupCommit);
  console.log(
    `${synchronous.padEnd(11)} ${format(single).padStart(18)} ${format(grouped).padStart(13)}  ${(grouped / single).toFixed(1)}×`,
  );
}
