// Debits per second with 64 concurrent callers (as 64 open HTTP connections would issue them), each
// adapter's group commit side by side in one run: SQLite on a temporary file with synchronous=FULL (the
// default: an fsync per commit), PostgreSQL on a server of the bench's own with fsync and
// synchronous_commit on, so a reported charge is on disk in both.
//
//   bun packages/store-postgres/bench/ledger.ts [debits per run, default 40000]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Accounts, Ledger } from "@social/core";
import { openDatabase, SqliteAccounts, SqliteLedger } from "@social/store-sqlite";
import { PostgresAccounts } from "../src/accounts/postgres-accounts.ts";
import { openPostgres } from "../src/database.ts";
import { PostgresLedger } from "../src/ledger/postgres-ledger.ts";
import { startPostgres } from "../testing/pg-server.ts";

const CALLERS = 64;
const DEBITS = Number(process.argv[2] ?? 40_000);

async function measure(accounts: Accounts, ledger: Ledger): Promise<number> {
  const { account, key } = await accounts.openAccount("bench", 1_000_000_000);
  const { keyId } = key;
  let issued = 0;
  const caller = async () => {
    while (issued < DEBITS) {
      await ledger.debit(account.id, { requestId: `r${issued++}`, keyId, endpoint: "/v1/tweets/{id}", credits: 1 });
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CALLERS }, caller));
  return DEBITS / ((performance.now() - started) / 1000);
}

async function sqlite(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "ledger-bench-"));
  const db = openDatabase(`file:${join(dir, "social.db")}`, { synchronous: "FULL" });
  try {
    return await measure(new SqliteAccounts(db), new SqliteLedger(db));
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function postgres(): Promise<number> {
  const server = await startPostgres({ durable: true });
  const sql = await openPostgres(await server.createDatabase("ledger"));
  try {
    return await measure(new PostgresAccounts(sql), new PostgresLedger(sql));
  } finally {
    await sql.close();
    server.stop();
  }
}

const format = (perSecond: number) => `${Math.round(perSecond).toLocaleString("en-US")}/s`;
console.log(
  `${DEBITS} debits of 1 credit on one account, ${CALLERS} concurrent callers, group commit, bun ${Bun.version}`,
);
const sqliteRate = await sqlite();
const postgresRate = await postgres();
console.log(`SQLite (synchronous=FULL)        ${format(sqliteRate)}`);
console.log(
  `PostgreSQL (synchronous_commit)  ${format(postgresRate)}  ${(postgresRate / sqliteRate).toFixed(2)}× SQLite`,
);
