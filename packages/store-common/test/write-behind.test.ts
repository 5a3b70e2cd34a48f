// The write-behind queue the request logs are written through: batches by time and by size, one write
// at a time, a refused batch tried again before it is given up, and a queue that never outgrows its
// bound however long the database is away.
import { expect, test } from "bun:test";
import { WriteBehind } from "../src/write-behind.ts";

function queue(write: (batch: number[]) => Promise<void>, lost: number[] = []) {
  return new WriteBehind(write, {
    intervalMs: 20,
    maxBatch: 10,
    maxQueued: 50,
    onLoss: (count) => lost.push(count),
  });
}

test("a few entries are written together after the interval; a full batch at once", async () => {
  const batches: number[][] = [];
  const behind = queue(async (batch) => {
    batches.push(batch);
  });
  for (let i = 0; i < 3; i++) behind.append(i);
  expect(batches).toEqual([]);
  await Bun.sleep(60);
  expect(batches).toEqual([[0, 1, 2]]);
  for (let i = 3; i < 13; i++) behind.append(i);
  await Bun.sleep(0);
  expect(batches[1]).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  behind.append(13);
  await behind.flush();
  expect(batches.flat()).toEqual(Array.from({ length: 14 }, (_, i) => i));
});

test("one write at a time, and a refused batch is tried again, in order, before what came after", async () => {
  const written: number[] = [];
  let inFlight = 0;
  let refusals = 2;
  const behind = queue(async (batch) => {
    inFlight++;
    expect(inFlight).toBe(1);
    await Bun.sleep(5);
    inFlight--;
    if (refusals-- > 0) throw new Error("the database is away");
    written.push(...batch);
  });
  for (let i = 0; i < 25; i++) behind.append(i);
  await behind.flush();
  expect(written).toEqual(Array.from({ length: 25 }, (_, i) => i));
});

test("a batch still refused after its tries is reported lost, and the rest goes on", async () => {
  const lost: number[] = [];
  const written: number[] = [];
  const behind = queue(async (batch) => {
    if (batch.includes(0)) throw new Error("never accepted");
    written.push(...batch);
  }, lost);
  for (let i = 0; i < 15; i++) behind.append(i);
  await behind.flush();
  expect(lost).toEqual([10]);
  expect(written).toEqual([10, 11, 12, 13, 14]);
}, 10_000);

test("while the database is away the queue keeps its bound, dropping the oldest and counting them", async () => {
  const lost: number[] = [];
  let release: () => void = () => {};
  const away = new Promise<void>((resolve) => {
    release = resolve;
  });
  const written: number[] = [];
  const behind = queue(async (batch) => {
    await away;
    written.push(...batch);
  }, lost);
  for (let i = 0; i < 1000; i++) behind.append(i);
  // One batch of 10 is being written; the queue holds at most 50 more; the rest were dropped.
  expect(lost.reduce((sum, count) => sum + count, 0)).toBe(1000 - 10 - 50);
  release();
  await behind.flush();
  expect(written).toEqual([
    ...Array.from({ length: 10 }, (_, i) => i),
    ...Array.from({ length: 50 }, (_, i) => 950 + i),
  ]);
});
