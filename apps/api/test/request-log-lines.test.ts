// The request log's lines on stdout (src/http/request-log.ts): one per request, each whole, written
// once per turn of the event loop in writes a pipe keeps whole, and none lost when the process ends.
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

test("a write holds at most 4,096 bytes, which a pipe shared by the workers keeps whole", async () => {
  const writes: string[] = [];
  const log = linesPerTurn((text) => writes.push(text));
  const line = "x".repeat(999);
  for (let i = 0; i < 10; i++) log(line);
  await nextTurn();
  expect(writes.map((text) => Buffer.byteLength(text) + 1)).toEqual([4000, 4000, 2000]);
  expect(writes.join("\n").split("\n")).toHaveLength(10);
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

test("four processes writing bursts of lines to one pipe leave every line whole", async () => {
  const script = join(dir, "bursts.ts");
  const module = join(import.meta.dir, "../src/http/request-log.ts");
  writeFileSync(
    script,
    `import { stdoutLog } from ${JSON.stringify(module)};
const line = (i: number) => JSON.stringify({ pid: process.pid, i, pad: "x".repeat(150) });
for (let turn = 0; turn < 40; turn++) {
  for (let i = 0; i < 100; i++) stdoutLog(line(turn * 100 + i));
  await new Promise((resolve) => setImmediate(resolve));
}
`,
  );
  const bun = JSON.stringify(process.execPath);
  const four = Array.from({ length: 4 }, () => `${bun} ${JSON.stringify(script)} &`).join(" ");
  // The four share the shell's stdout, one pipe, as workers share the supervisor's.
  const child = Bun.spawn(["sh", "-c", `${four} wait`], { stdout: "pipe", stderr: "inherit" });
  const [out] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  const lines = out.trimEnd().split("\n");
  expect(lines).toHaveLength(4 * 4000);
  const torn = lines.filter((line) => {
    try {
      JSON.parse(line);
      return false;
    } catch {
      return true;
    }
  });
  expect(torn).toEqual([]);
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
