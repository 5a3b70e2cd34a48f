// The request log's lines on stdout (src/http/request-log.ts): one per request, each whole, written
// once per turn of the event loop instead of one write per line, and none lost when the process ends.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { examples } from "@social/fixtures";
import { linesPerTurn } from "../src/http/request-log.ts";
import { openAccounts } from "./reliability/load.ts";
import { spawnServer, worldCopy } from "./reliability/server-process.ts";

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

test("the lines of one turn are written together, in order, once the turn ends", async () => {
  const writes: string[] = [];
  const log = linesPerTurn((text) => writes.push(text));
  log("one");
  log("two");
  log("three");
  expect(writes).toEqual([]);
  await nextTurn();
  expect(writes).toEqual(["one\ntwo\nthree"]);
  log("four");
  await nextTurn();
  expect(writes).toEqual(["one\ntwo\nthree", "four"]);
});

test("lines past 64 KB waiting are written at once", () => {
  const writes: string[] = [];
  const log = linesPerTurn((text) => writes.push(text));
  const line = "x".repeat(1023);
  for (let i = 0; i < 64; i++) log(line);
  expect(writes).toHaveLength(1);
  expect(writes[0]?.split("\n")).toHaveLength(64);
});

const dir = mkdtempSync(join(tmpdir(), "request-log-lines-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("what is waiting when the process exits is written", async () => {
  const script = join(dir, "exits.ts");
  const module = join(import.meta.dir, "../src/http/request-log.ts");
  writeFileSync(
    script,
    `import { stdoutLog } from ${JSON.stringify(module)};\nstdoutLog("first");\nstdoutLog("last");\nprocess.exit(0);\n`,
  );
  const child = Bun.spawn([process.execPath, script], { stdout: "pipe", stderr: "inherit" });
  const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  expect(code).toBe(0);
  expect(out).toBe("first\nlast\n");
});

test("the real server writes one whole line per request, answered together or not, and keeps them at SIGTERM", async () => {
  const world = worldCopy();
  try {
    const [account] = openAccounts(world.databasePath, [1_000]);
    if (!account) throw new Error("an account");
    const server = await spawnServer(world.databasePath);
    const ids: string[] = [];
    try {
      const answers = await Promise.all(
        Array.from({ length: 40 }, () =>
          fetch(`${server.url}/v1/tweets/${examples.tweet_id}`, {
            headers: { authorization: `Bearer ${account.key}` },
          }),
        ),
      );
      for (const answer of answers) {
        await answer.arrayBuffer();
        ids.push(answer.headers.get("x-request-id") ?? "");
      }
    } finally {
      await server.stop();
    }
    const lines = (await server.logs())
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { id?: string; status?: number });
    const logged = new Map(lines.filter((line) => line.id !== undefined).map((line) => [line.id, line.status]));
    for (const id of ids) expect(logged.get(id)).toBe(200);
  } finally {
    world.remove();
  }
});
