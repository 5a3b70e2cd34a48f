// What /docs shows a customer works as shown: every curl line's request, every JavaScript snippet run by
// Bun, every Python snippet run by Debian's python3 with requests, the paging loop, and every search
// operator's example against the real server; each sample response matches its endpoint's published
// schema; and no operator's material is left on the page.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { catalogue } from "@social/core";
import { runProcess } from "@social/testing";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { startTestServer, type TestServer } from "./harness.ts";
import { curlRequest, htmlText } from "./pasted-curl.ts";

const PYTHON = "/usr/bin/python3";

let server: TestServer;
let page: string;
let key: string;
let dir: string;

beforeAll(async () => {
  server = await startTestServer();
  key = (await server.account(1_000_000)).key;
  page = await (await server.get("/docs")).text();
  dir = mkdtempSync(join(tmpdir(), "docs-examples-"));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The text of every `<code class="…">` of that class on the page. */
function blocks(className: string): string[] {
  const pattern = new RegExp(`<code class="${className}">([\\s\\S]*?)</code>`, "g");
  return [...page.matchAll(pattern)].map((match) => htmlText(match[1] ?? ""));
}

/** Runs `snippets` as one program, each in a block of its own, and returns what it printed. */
async function runAll(command: string[], file: string, program: string): Promise<string> {
  writeFileSync(join(dir, file), program);
  const { stdout, stderr, code } = await runProcess([...command, join(dir, file)], {
    env: { ...process.env, API_KEY: key },
  });
  expect(stderr).toBe("");
  expect(code).toBe(0);
  return stdout;
}

/** The status each snippet printed first on its line, before the body it printed. */
function statuses(output: string): string[] {
  return [...output.matchAll(/^(\d{3}) [[{]/gm)].map((match) => match[1] ?? "");
}

describe("/docs", () => {
  it("shows a request in curl, JavaScript and Python for every endpoint and account read", () => {
    const count = catalogue.length + 2;
    expect(blocks("javascript").length).toBe(count);
    expect(blocks("python").length).toBe(count);
    expect(blocks("curl").length).toBeGreaterThanOrEqual(count);
    for (const line of blocks("curl").filter((command) => command.includes("query"))) {
      expect(line).toContain("--data-urlencode 'query=");
    }
  });

  it("has curl lines whose requests all succeed", async () => {
    for (const command of blocks("curl")) {
      const { url, headers } = curlRequest(command, key);
      const answer = await fetch(url, { headers });
      expect({ command, status: answer.status }).toEqual({ command, status: 200 });
    }
  });

  it("has JavaScript examples that all succeed", async () => {
    const program = blocks("javascript")
      .map((code) => `{\n${code}\n}`)
      .join("\n");
    const output = await runAll([process.execPath], "examples.mjs", program);
    expect(statuses(output)).toEqual(blocks("javascript").map(() => "200"));
  });

  it.skipIf(!existsSync(PYTHON))("has Python examples that all succeed", async () => {
    const program = blocks("python").join("\n\n");
    const output = await runAll([PYTHON], "examples.py", program);
    expect(statuses(output)).toEqual(blocks("python").map(() => "200"));
  });

  it("has a paging loop that reads every page", async () => {
    const [loop] = blocks("paging-loop");
    const output = await runAll([process.execPath], "paging.mjs", loop ?? "");
    const count = Number(output.split(" ")[0]);
    // More than one page of the default world's search: the loop followed next_token.
    expect(count).toBeGreaterThan(20);
  });

  it("has an example query for every search operator that matches tweets of the world", async () => {
    const queries = blocks("operator-example");
    expect(queries.length).toBeGreaterThan(20);
    for (const query of queries) {
      const answer = await server.get(`/v1/search/recent?query=${encodeURIComponent(query)}&limit=1`, key);
      const body = (await answer.json()) as { data?: unknown[] };
      expect({ query, status: answer.status, found: body.data?.length }).toEqual({ query, status: 200, found: 1 });
    }
  });

  it("has a sample response for every endpoint, each valid against the endpoint's published schema", async () => {
    const doc = (await (await server.get("/openapi.json")).json()) as {
      paths: Record<string, { get: { responses: { 200: { content: { "application/json": { schema: unknown } } } } } }>;
      components: unknown;
    };
    const samples = new Map(
      [...page.matchAll(/<code class="sample-response" id="sample-(\w+)">([\s\S]*?)<\/code>/g)].map((match) => [
        match[1],
        htmlText(match[2] ?? ""),
      ]),
    );
    expect(samples.size).toBe(catalogue.length);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    catalogue.forEach((endpoint) => {
      const schema = doc.paths[endpoint.path]?.get.responses[200].content["application/json"].schema;
      const validate = ajv.compile(schema as object);
      const sample = JSON.parse(samples.get(endpoint.id) ?? "null");
      expect({ path: endpoint.path, valid: validate(sample), errors: validate.errors ?? null }).toEqual({
        path: endpoint.path,
        valid: true,
        errors: null,
      });
    });
  });

  it("leaves the operator's material out", () => {
    const found = ["SPEC.md", "bun run admin", "REDIS_URL", "bm25", "SQLite"].filter((word) => page.includes(word));
    expect(found).toEqual([]);
  });
});
