import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { toolSuite } from "./conformance.ts";
import {
  type ConnectOptions,
  openTestWorld,
  STDIO_ENTRY,
  stdioConnector,
  stdioEnvironment,
  type TestWorld,
} from "./harness.ts";

let world: TestWorld;
beforeAll(() => {
  world = openTestWorld();
});
afterAll(() => world.close());

toolSuite(
  "stdio",
  () => world,
  (options) => stdioConnector(world)(options),
);

/** Starts the binary without a client: a connection that must fail does so before any message. */
function startBinary(options: Partial<ConnectOptions>) {
  const child = Bun.spawnSync([process.execPath, STDIO_ENTRY], {
    env: stdioEnvironment(world, options),
    stdin: "ignore",
    timeout: 10_000,
  });
  return { exitCode: child.exitCode, stdout: child.stdout.toString(), stderr: child.stderr.toString() };
}

describe("stdio: the connection fails at start", () => {
  test("without SOCIAL_API_KEY", () => {
    const run = startBinary({});
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain("Missing API key: set the SOCIAL_API_KEY environment variable");
    expect(run.stdout).toBe("");
  });

  test("with a key that does not exist", () => {
    const run = startBinary({ key: "sk_live_00000000000000000000000000000000" });
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain("Invalid API key");
    expect(run.stdout).toBe("");
  });

  test("with a revoked key", () => {
    const revoked = world.account();
    world.revoke(revoked.keyId);
    const run = startBinary({ key: revoked.key });
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain("This API key has been revoked");
    expect(run.stdout).toBe("");
  });

  test("on a database file that does not exist", () => {
    const run = Bun.spawnSync([process.execPath, STDIO_ENTRY], {
      env: { ...stdioEnvironment(world, { key: world.account().key }), DATABASE_URL: "file:/nonexistent/social.db" },
      stdin: "ignore",
      timeout: 10_000,
    });
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr.toString()).toContain("no database at /nonexistent/social.db");
  });

  test("with an unknown toolset", () => {
    const run = startBinary({ key: world.account().key, toolsets: "search,dms" });
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain("Unknown toolset dms: choose from search, users, graph");
  });
});
