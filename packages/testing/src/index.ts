// What the tests' real servers (PostgreSQL, Redis, the API itself) need from their host: a free
// loopback port, and clean-up that happens however the test process ends.
import { spawn } from "node:child_process";
import { createServer } from "node:net";

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

/**
 * Runs a shell command once this process is gone, however it ended: `bun test` runs no exit handlers,
 * and a test process that crashed or timed out never reached its own clean-up. A detached shell
 * outlives this process to do it; when the tests cleaned up themselves it finds nothing left to do.
 */
export function afterProcessExit(command: string): void {
  const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ${command}`;
  spawn("sh", ["-c", script], { detached: true, stdio: "ignore" }).unref();
}
