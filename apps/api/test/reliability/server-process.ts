// The real server as its own process (`src/main.ts`), the way it runs in production: the soak measures
// it without the load generator sharing its event loop, and the crash test can SIGKILL it.

import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { SERVER_RUNTIME_FLAGS } from "../../src/server.ts";
import { freePort, worldTemplate } from "../harness.ts";

const MAIN = join(import.meta.dir, "../../src/main.ts");
/** A start on a slow, shared machine: opening the database and migrating, not building the world. */
const START_TIMEOUT_MS = 60_000;

export interface ServerProcess {
  url: string;
  /** Everything the process wrote: its request log (stdout) and diagnostics (stderr). */
  logs(): Promise<string>;
  /** SIGKILL: no shutdown code runs, exactly like a power cut or an OOM kill of the process. */
  kill(): Promise<void>;
  /** SIGTERM: the server finishes in-flight requests and closes the database. */
  stop(): Promise<void>;
}

/** A private copy of the default fixture world in a new temporary directory. */
export function worldCopy(): { dir: string; databasePath: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "social-api-reliability-"));
  const databasePath = join(dir, "social.db");
  copyFileSync(worldTemplate(), databasePath);
  return { dir, databasePath, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

async function waitUntilServing(url: string, child: Subprocess): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with code ${child.exitCode} while starting`);
    const ready = await fetch(`${url}/openapi.json`, { signal: AbortSignal.timeout(2_000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return;
    await Bun.sleep(100);
  }
  child.kill("SIGKILL");
  throw new Error(`the server did not answer on ${url} within ${START_TIMEOUT_MS} ms`);
}

/** Starts `src/main.ts` on a free loopback port over `databasePath`, with rate limiting off. */
export async function spawnServer(databasePath: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const logPrefix = `${databasePath}.${port}`;
  const child = Bun.spawn([process.execPath, ...SERVER_RUNTIME_FLAGS, MAIN], {
    env: {
      PATH: process.env.PATH ?? "",
      HOST: "127.0.0.1",
      PORT: String(port),
      DATABASE_URL: `file:${databasePath}`,
      RATE_LIMIT_RPS: "0",
      ...env,
    },
    stdin: "ignore",
    stdout: Bun.file(`${logPrefix}.out`),
    stderr: Bun.file(`${logPrefix}.err`),
  });
  await waitUntilServing(url, child);
  return {
    url,
    async logs() {
      return (await Bun.file(`${logPrefix}.out`).text()) + (await Bun.file(`${logPrefix}.err`).text());
    },
    async kill() {
      child.kill("SIGKILL");
      await child.exited;
    },
    async stop() {
      child.kill("SIGTERM");
      await child.exited;
    },
  };
}
