// What an operator sees when the server cannot start: one line naming the cause, and exit code 1.
import { describe, expect, it } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SERVER_RUNTIME_FLAGS } from "../src/server.ts";

const MAIN = join(import.meta.dir, "../src/main.ts");

async function start(databaseUrl: string, cwd: string) {
  const child = Bun.spawn([process.execPath, ...SERVER_RUNTIME_FLAGS, MAIN], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOST: "127.0.0.1", PORT: "0", DATABASE_URL: databaseUrl },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  return { code, lines: stderr.trim().split("\n") };
}

describe("a DATABASE_URL no adapter serves", () => {
  it("is one clear line and exit 1, and no file or folder is created for it", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "social-start-"));
    try {
      for (const url of ["mysql://root@127.0.0.1/social", "postgres://app@127.0.0.1:1/social"]) {
        const { code, lines } = await start(url, cwd);
        expect({ url, code, lines: lines.length }).toEqual({ url, code: 1, lines: 1 });
        expect(lines[0]).toStartWith("Cannot start: DATABASE_URL");
      }
      expect(readdirSync(cwd)).toEqual([]);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
