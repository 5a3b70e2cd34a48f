// committedBehind (src/ledger/pipelined-commit.ts) sends the COMMIT behind the batch's one write without
// waiting for it: the work's reads and locks and the write are one transaction, which commits whole or
// not at all, and whatever failed, the locks are given up.
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { SQL } from "bun";
import { committedBehind } from "../src/ledger/pipelined-commit.ts";
import { type PostgresServer, startPostgres } from "../testing/pg-server.ts";

let server: PostgresServer;
let sql: SQL;
/** Another session, as another process would have. */
let other: SQL;

beforeAll(async () => {
  server = await startPostgres();
  sql = new SQL(server.url, { max: 1 });
  other = new SQL(server.url, { max: 1 });
  await sql`CREATE TABLE rows (id INTEGER PRIMARY KEY, note TEXT NOT NULL)`;
});

beforeEach(async () => {
  await sql`TRUNCATE rows`;
  await sql`INSERT INTO rows (id, note) VALUES (1, 'the locked row')`;
});

afterAll(async () => {
  await sql.close();
  await other.close();
  await server.stop();
});

const notes = async () =>
  (await other<{ id: number; note: string }[]>`SELECT id, note FROM rows ORDER BY id`).map(
    (row) => `${row.id} ${row.note}`,
  );

/** Whether another session can lock row 1 at once: the transaction that locked it has ended. */
const rowOneFree = () =>
  other
    .begin(async (tx) => {
      await tx`SELECT id FROM rows WHERE id = 1 FOR UPDATE NOWAIT`;
    })
    .then(
      () => true,
      () => false,
    );

test("the work's reads and locks and the write are one transaction, committed", async () => {
  const result = await committedBehind(sql, async (tx) => {
    const [read] = await tx<{ xid: string }[]>`SELECT txid_current()::text AS xid FROM rows WHERE id = 1 FOR UPDATE`;
    return {
      result: read?.xid,
      write: tx`INSERT INTO rows (id, note) SELECT 2, txid_current()::text`,
    };
  });
  expect(await notes()).toEqual(["1 the locked row", `2 ${result}`]);
  expect(await rowOneFree()).toBe(true);
});

test("a write the server refuses throws its error; nothing of the transaction is kept, and its locks end", async () => {
  const attempt = committedBehind(sql, async (tx) => {
    await tx`SELECT id FROM rows WHERE id = 1 FOR UPDATE`;
    await tx`INSERT INTO rows (id, note) VALUES (3, 'written before the write')`;
    // id 1 exists: the write fails on the server partway, with the COMMIT already sent behind it.
    return { result: "done", write: tx`INSERT INTO rows (id, note) VALUES (4, 'new'), (1, 'again')` };
  });
  await expect(attempt).rejects.toMatchObject({ errno: "23505" });
  expect(await notes()).toEqual(["1 the locked row"]);
  expect(await rowOneFree()).toBe(true);
});

test("a write that never reaches the server throws its error, and writes nothing", async () => {
  const attempt = committedBehind(sql, async (tx) => {
    await tx`SELECT id FROM rows WHERE id = 1 FOR UPDATE`;
    // A value no parameter can carry: the statement cannot be built, so it is never sent.
    return { result: "done", write: tx`INSERT INTO rows (id, note) VALUES (5, ${Symbol("unsendable") as never})` };
  });
  const error = await attempt.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeDefined();
  expect(error).not.toHaveProperty("errno");
  expect(await notes()).toEqual(["1 the locked row"]);
  expect(await rowOneFree()).toBe(true);
});

test("work that throws before its write rolls back what it did, and its locks end", async () => {
  const attempt = committedBehind(sql, async (tx) => {
    await tx`SELECT id FROM rows WHERE id = 1 FOR UPDATE`;
    await tx`INSERT INTO rows (id, note) VALUES (6, 'then a throw')`;
    throw new Error("decided against it");
  });
  await expect(attempt).rejects.toThrow("decided against it");
  expect(await notes()).toEqual(["1 the locked row"]);
  expect(await rowOneFree()).toBe(true);
});
