// A customer's generated client: openapi-typescript makes types from the served /openapi.json, and
// openapi-fetch reads with them. A normal read must compile with no guard on its data, and a dry run's
// quote must have a type of its own; the client then runs against the real server.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { examples } from "@social/fixtures";
import openapiTS, { astToString } from "openapi-typescript";
import { startTestServer, type TestServer } from "./harness.ts";

const API_DIR = join(import.meta.dir, "..");

// No `if`, no `in`, no cast on the read: `data.data.username` must type-check as the read's own field.
const CLIENT = `import createClient from "openapi-fetch";
import type { components, paths } from "./api.ts";

const client = createClient<paths>({
  baseUrl: process.env.API_URL,
  headers: { authorization: \`Bearer \${process.env.API_KEY}\` },
});

const read = await client.GET("/v1/users/by-username/{username}", {
  params: { path: { username: ${JSON.stringify(examples.username)} } },
});
if (read.error) throw new Error(read.error.error.message);
const username: string = read.data.data.username;
const charged: number = read.data.meta.credits.charged;

const dryRun = await client.GET("/v1/search/recent", {
  params: { query: { query: ${JSON.stringify(examples.search_query)}, dry_run: true } },
});
const quote = dryRun.data as unknown as components["schemas"]["DryRunQuote"];
const most: number = quote.meta.credits.max;

console.log(JSON.stringify({ username, charged, most, rule: quote.meta.credits.rule }));
`;

const TSCONFIG = {
  compilerOptions: {
    target: "ES2023",
    lib: ["ES2023", "DOM"],
    module: "Preserve",
    moduleResolution: "bundler",
    strict: true,
    noUncheckedIndexedAccess: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  },
  files: ["client.ts", "globals.d.ts"],
};

let server: TestServer;
let dir: string;
beforeAll(async () => {
  server = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), "typed-client-"));
  symlinkSync(join(API_DIR, "node_modules"), join(dir, "node_modules"));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function run(command: string[], env: Record<string, string> = {}): Promise<{ code: number; output: string }> {
  const child = Bun.spawn(command, { cwd: dir, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, output: stdout + stderr };
}

describe("a client generated from /openapi.json", () => {
  it("reads with no guard on the data, and types a dry run's quote apart", async () => {
    const document = await (await server.get("/openapi.json")).text();
    writeFileSync(join(dir, "api.ts"), astToString(await openapiTS(document)));
    writeFileSync(join(dir, "client.ts"), CLIENT);
    writeFileSync(join(dir, "globals.d.ts"), "declare const process: { env: Record<string, string | undefined> };\n");
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(TSCONFIG));

    const compiled = await run([join(API_DIR, "node_modules/.bin/tsc"), "-p", "tsconfig.json"]);
    expect(compiled.output).toBe("");
    expect(compiled.code).toBe(0);

    const { key } = await server.account(100);
    const ran = await run([process.execPath, "client.ts"], { API_URL: server.url, API_KEY: key });
    expect(ran.code).toBe(0);
    const answer = JSON.parse(ran.output);
    expect(answer).toMatchObject({ username: examples.username, charged: 1 });
    expect(answer.most).toBeGreaterThan(1);
    expect(typeof answer.rule).toBe("string");
  });
});
