// A real Redis for the tests: Debian's redis-server (`npm test` installs the package when missing) on a
// free loopback port, with nothing persisted, stopped afterwards. It can be stopped and started again on
// the same port mid-test, as an outage would.
import { existsSync } from "node:fs";
import { afterProcessExit, freePort } from "@social/testing";
import { RedisClient, type Subprocess } from "bun";

const BINARY = "/usr/bin/redis-server";

export interface RedisServer {
  url: string;
  /** A client of the test's own, to look at the buckets. */
  client(): RedisClient;
  /** Ends the server at once (SIGKILL): everything in it is lost, as in a crash. */
  kill(): Promise<void>;
  /** Starts an empty server again on the same port. */
  restart(): Promise<void>;
  /** SIGSTOP: the server keeps its connections but answers nothing, as a hung or partitioned one. */
  freeze(): void;
  /** SIGCONT after freeze. */
  thaw(): void;
  stop(): Promise<void>;
}

async function answering(url: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const client = new RedisClient(url, { autoReconnect: false, connectionTimeout: 500 });
    const up = await client.send("PING", []).then(
      () => true,
      () => false,
    );
    client.close();
    if (up) return;
    await Bun.sleep(50);
  }
  throw new Error(`redis-server did not answer on ${url}`);
}

export async function startRedis(): Promise<RedisServer> {
  if (!existsSync(BINARY))
    throw new Error("redis-server is not installed: `npm test` installs Debian's redis-server package");
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let server: Subprocess | undefined;
  const start = async () => {
    server = Bun.spawn(
      [BINARY, "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", "/tmp"],
      { stdout: "ignore", stderr: "ignore", stdin: "ignore" },
    );
    afterProcessExit(`kill -9 ${server.pid} 2>/dev/null`);
    await answering(url);
  };
  const kill = async () => {
    server?.kill("SIGKILL");
    await server?.exited;
  };
  await start();
  return {
    url,
    client: () => new RedisClient(url),
    kill,
    restart: start,
    freeze: () => server?.kill("SIGSTOP"),
    thaw: () => server?.kill("SIGCONT"),
    stop: kill,
  };
}
