// What the tests' real servers (PostgreSQL, Redis, the API itself) need from their host: a free
// loopback port, and clean-up that happens however the test process ends.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

export { snapshotDifference } from "./snapshot.ts";

/** A loopback port nothing listens on right now (the kernel's choice, released at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/** Whether something may listen on `port` of the loopback address now. */
export function isFreePort(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/**
 * A free loopback port that a connection may be given as its own (Linux): one of the kernel's ephemeral
 * range, of the parity it tries first for a connection's port; freePort's, its choice for a listener,
 * has the other. While nothing listens there, a client's connection to it can reach itself.
 */
export async function selfConnectablePort(): Promise<number> {
  const range = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
  const [low, high] = range as [number, number];
  for (;;) {
    const port = (await freePort()) + 1;
    if (port % 2 === low % 2 && port <= high && (await isFreePort(port))) return port;
  }
}

/**
 * Runs a shell command once this process is gone, however it ended: `bun test` runs no exit handlers,
 * and a test process that crashed or timed out never reached its own clean-up. A detached shell
 * outlives this process to do it; when the tests cleaned up themselves it finds nothing left to do.
 */
export function afterProcessExit(command: string): void {
  const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ${command}`;
  spawn("sh", ["-c", script], { detached: true, stdio: "ignore" }).unref();
}

/** The repository's root, where the apps' entry points are run from. */
export const REPO_ROOT = new URL("../../../", import.meta.url).pathname;

/** Runs the operator CLI (`bun run admin …`) as an operator would, in a process of its own on `databaseUrl`. */
export async function runAdmin(
  databaseUrl: string,
  args: readonly string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  return runProcess([process.execPath, "apps/admin/src/main.ts", ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl },
  });
}

/** Runs `argv` to its end: its exit code and everything it printed. */
export async function runProcess(
  argv: readonly string[],
  options: { cwd?: string; env?: Record<string, string | undefined> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = Bun.spawn([...argv], { ...options, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, stdout, stderr };
}
