// The real server as its own process (`src/main.ts`), the way it runs in production: the soak measures
// it without the load generator sharing its event loop, and the crash test can SIGKILL it. It serves a
// SQLite file or any DATABASE_URL (several processes may share one PostgreSQL database), from one
// process or, with WEB_CONCURRENCY in `env`, from workers under the supervisor.

import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseDatabaseUrl } from "@social/core";
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
  /** Whether the process is still running (it has not exited, by itself or by kill/stop). */
  running(): boolean;
  /** Its exit code once it has exited (null while running, or when a signal ended it). */
  exitCode(): number | null;
  /** The processes serving: the server itself, or the supervisor's workers. */
  servingPids(): number[];
}

/** The children of a process, from /proc (Linux). */
function childrenOf(pid: number): number[] {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
    return children === "" ? [] : children.split(" ").map(Number);
  } catch {
    return [];
  }
}

/** A private copy of the default fixture world in a new temporary directory. */
export function worldCopy(): { dir: string; databasePath: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "social-api-reliability-"));
  const databasePath = join(dir, "social.db");
  copyFileSync(worldTemplate(), databasePath);
  return { dir, databasePath, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Serving: answering on the port, and with workers, every one of them (the supervisor's banner says so). */
async function waitUntilServing(url: string, child: Subprocess, banner: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with code ${child.exitCode} while starting`);
    const ready = await fetch(`${url}/openapi.json`, { signal: AbortSignal.timeout(2_000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (ready && (await banner())) return;
    await Bun.sleep(100);
  }
  child.kill("SIGKILL");
  throw new Error(`the server did not answer on ${url} within ${START_TIMEOUT_MS} ms`);
}

/**
 * Starts `src/main.ts` on a free loopback port, with rate limiting off, over `database`: a SQLite file's
 * path (its logs are written beside it) or a DATABASE_URL such as postgres://….
 */
export async function spawnServer(database: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const isUrl = parseDatabaseUrl(database).kind === "postgres";
  // Beside a SQLite file, the logs go with its folder; otherwise into a folder of their own, read into
  // memory and removed once the process has ended (bun test runs no exit handlers to do it later).
  const logDir = isUrl ? mkdtempSync(join(tmpdir(), "social-api-server-")) : undefined;
  const logPrefix = logDir ? join(logDir, String(port)) : `${database}.${port}`;
  const child = Bun.spawn([process.execPath, ...SERVER_RUNTIME_FLAGS, MAIN], {
    env: {
      PATH: process.env.PATH ?? "",
      HOST: "127.0.0.1",
      PORT: String(port),
      DATABASE_URL: isUrl ? database : `file:${database}`,
      RATE_LIMIT_RPS: "0",
      ...env,
    },
    stdin: "ignore",
    stdout: Bun.file(`${logPrefix}.out`),
    stderr: Bun.file(`${logPrefix}.err`),
  });
  let kept: string | undefined;
  const logs = async () =>
    kept ?? (await Bun.file(`${logPrefix}.out`).text()) + (await Bun.file(`${logPrefix}.err`).text());
  const ended = async () => {
    await child.exited;
    if (logDir === undefined || kept !== undefined) return;
    kept = await logs();
    rmSync(logDir, { recursive: true, force: true });
  };
  const supervised = Number(env.WEB_CONCURRENCY ?? 1) > 1;
  const banner = async () => !supervised || (await logs()).includes("Social Data API listening on");
  try {
    await waitUntilServing(url, child, banner);
  } catch (error) {
    await ended();
    throw error;
  }
  return {
    url,
    logs,
    async kill() {
      child.kill("SIGKILL");
      await ended();
    },
    async stop() {
      child.kill("SIGTERM");
      await ended();
    },
    running: () => child.exitCode === null && child.signalCode === null,
    exitCode: () => child.exitCode,
    servingPids: () => (supervised ? childrenOf(child.pid) : [child.pid]),
  };
}
