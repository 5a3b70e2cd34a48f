// committedBehind (src/ledger/pipelined-commit.ts) sends the COMMIT behind the batch's one write without
// waiting for it: the write commits whole or not at all, and the connection goes back to the pool
// outside any transaction, whatever failed.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SQL } from "bun";
import { committedBehind } from "../src/ledger/pipelined-commit.ts";
import { type PostgresServer, startPostgres } from "../testing/pg-server.ts";

let server: PostgresServer;
let sql: SQL;

beforeAll(async () => {
  server = await startPostgres();
  // One connection: every transaction below gets the connection the one before it gave back.
  sql = new SQL(server.url, { max: 1 });
  await sql`CREATE TABLE rows (id INTEGER PRIMARY KEY, note TEXT NOT NULL)`;
});

afterAll(async () => {
  await sql.close();
  await server.stop();
});

const rows = async () => (await sql<{ id: number }[]>`SELECT id FROM rows ORDER BY id`).map((row) => row.id);
/** Whether the pool's connection is inside a transaction: SAVEPOINT is refused outside one. */
const inTransaction = () =>
  sql`SAVEPOINT probe`.then(
    () => true,
    () => false,
  );

test("the write commits, and the work's result is returned", async () => {
  const result = await committedBehind(sql, async (tx) => {
    const [seen] = await tx<{ n: number }[]>`SELECT count(*)::int AS n FROM rows`;
    return { result: seen?.n, write: tx`INSERT INTO rows (id, note) VALUES (1, 'one'), (2, 'two')` };
  });
  expect(result).toBe(0);
  expect(await rows()).toEqual([1, 2]);
  expect(await inTransaction()).toBe(false);
});

test("a write the server refuses throws its error, and none of it is kept", async () => {
  const attempt = committedBehind(sql, async (tx) => ({
    result: "done",
    // id 1 exists: the write fails on the server partway, with the COMMIT already sent behind it.
    write: tx`INSERT INTO rows (id, note) VALUES (3, 'new'), (1, 'again')`,
  }));
  await expect(attempt).rejects.toMatchObject({ errno: "23505" });
  expect(await rows()).toEqual([1, 2]);
  expect(await inTransaction()).toBe(false);
});

test("a write that never reaches the server throws its error, and commits nothing", async () => {
  const attempt = committedBehind(sql, async (tx) => ({
    result: "done",
    // A value no parameter can carry: the statement cannot be built, so it is never sent.
    write: tx`INSERT INTO rows (id, note) VALUES (${4}, ${Symbol("unsendable") as unknown as string})`,
  }));
  await expect(attempt).rejects.toBeDefined();
  expect(await rows()).toEqual([1, 2]);
  expect(await inTransaction()).toBe(false);
});

test("work that throws before its write rolls back what it did", async () => {
  const attempt = committedBehind(sql, async (tx) => {
    await tx`INSERT INTO rows (id, note) VALUES (5, 'then a throw')`;
    throw new Error("decided against it");
  });
  await expect(attempt).rejects.toThrow("decided against it");
  expect(await rows()).toEqual([1, 2]);
  expect(await inTransaction()).toBe(false);
});
