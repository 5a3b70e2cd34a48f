// The published description is valid OpenAPI 3.1, covers every path, states every parameter exactly as
// the MCP tools do, and the real answers to its own examples (and to failing requests) validate against
// the response schemas it publishes.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Validator } from "@seriousme/openapi-schema-validator";
import {
  accountReads,
  catalogue,
  decisionsMarkdown,
  describeCostRule,
  ERROR_GUIDE,
  ERROR_STATUS,
  type ErrorCode,
  pathParamNames,
} from "@social/core";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { DECISIONS } from "../src/docs/openapi.ts";
import { startTestServer, type TestServer } from "./harness.ts";

let server: TestServer;
let doc: {
  openapi: string;
  info: { version: string; description: string };
  paths: Record<
    string,
    Record<
      string,
      {
        operationId: string;
        description: string;
        parameters: { name: string; in: string; required: boolean; schema: unknown; example?: string }[];
        responses: Record<string, { content: { "application/json": { schema: unknown } } }>;
      }
    >
  >;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
};

beforeAll(async () => {
  server = await startTestServer();
  doc = (await (await server.get("/openapi.json")).json()) as typeof doc;
});
afterAll(() => server.close());

function validatorFor(schema: unknown) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: "doc", components: doc.components }, "doc");
  const resolved = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/'));
  return ajv.compile(resolved);
}

describe("/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document, version 1.0.0", async () => {
    const result = await new Validator().validate(doc as unknown as Parameters<Validator["validate"]>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("1.0.0");
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
  });

  it("describes all 31 /v1 paths with their parameters and costs", () => {
    for (const endpoint of catalogue) {
      const operation = doc.paths[endpoint.path]?.get;
      expect(operation?.operationId).toBe(endpoint.id);
      const names = operation?.parameters.map((p) => p.name) ?? [];
      for (const name of pathParamNames(endpoint.path)) expect(names).toContain(name);
      const cost = "kind" in endpoint.cost ? describeCostRule(endpoint.cost) : "mode=ids";
      expect(operation?.description).toContain(cost);
      expect(Object.keys(operation?.responses ?? {})).toEqual(
        expect.arrayContaining(["200", "400", "401", "402", "404", "429", "500", "503"]),
      );
    }
  });

  it("names every error code, with what to do about it, in its status's response", () => {
    const responses = (doc.paths["/v1/search/recent"]?.get?.responses ?? {}) as unknown as Record<
      string,
      { description: string }
    >;
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      const description = responses[String(status)]?.description ?? "";
      expect(description).toContain(`${code}: `);
      expect(description).toContain(ERROR_GUIDE[code as ErrorCode].action);
    }
  });

  it("its examples succeed and every answer matches the published response schema", async () => {
    const { key } = await server.account(100_000);
    // The monitor paths' id: a monitor of the account, which no world example can name.
    const monitor = await (
      await server.get("/v1/monitors", key, { method: "POST", body: '{"query":"coffee"}' })
    ).json();
    const monitorId = (monitor as { data: { id: string } }).data.id;
    for (const [path, item] of Object.entries(doc.paths)) {
      const operation = item.get;
      // The stream answers text/event-stream, read by its own tests.
      if (!operation?.responses["200"]?.content["application/json"]) continue;
      let url = path.replace("/v1/monitors/{id}", `/v1/monitors/${monitorId}`);
      const query = new URLSearchParams();
      for (const parameter of operation.parameters) {
        if (parameter.example === undefined) continue;
        if (parameter.in === "path") url = url.replace(`{${parameter.name}}`, parameter.example);
        else query.set(parameter.name, parameter.example);
      }
      const response = await server.get(`${url}${query.size ? `?${query}` : ""}`, key);
      expect(response.status).toBe(200);
      const validate = validatorFor(operation.responses["200"]?.content["application/json"].schema);
      const body = await response.json();
      expect({ path, ok: validate(body), errors: validate.errors }).toEqual({ path, ok: true, errors: null });

      const failing = await server.get(url.replace(/(?<!^)\/\d+(\/|$)/, "/1$1"), "sk_live_wrong");
      const errorValidate = validatorFor(operation.responses["401"]?.content["application/json"].schema);
      const failure = await failing.json();
      expect({ path, status: failing.status, ok: errorValidate(failure), errors: errorValidate.errors }).toEqual({
        path,
        status: 401,
        ok: true,
        errors: null,
      });
    }
  }, 60_000);
});

/** A schema without its descriptions: the MCP tools describe in fewer words, the bounds are what must agree. */
function rules(schema: unknown): unknown {
  if (typeof schema !== "object" || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key]) => key !== "description")
      .map(([key, value]) => [key, rules(value)]),
  );
}

describe("/openapi.json and the MCP tools", () => {
  it("give every parameter of every endpoint the same rules, but for MCP's own arguments and handles", async () => {
    const client = new Client({ name: "openapi-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${(await server.account()).key}` } },
    });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      for (const endpoint of catalogue) {
        // The request controls and headers are HTTP's; a tool takes its own, described in the instructions.
        const parameters = (doc.paths[endpoint.path]?.get?.parameters ?? []).filter(
          (p) => p.in !== "header" && !["max_credits", "dry_run"].includes(p.name),
        );
        const input = tools.find((tool) => tool.name === endpoint.tool)?.inputSchema;
        const {
          idempotency_key: _idempotency,
          max_credits: _maxCredits,
          dry_run: _dryRun,
          view: _view,
          ...properties
        } = input?.properties ?? {};
        // An agent may write a handle @name: the tool's pattern allows the @ that the call strips.
        const handles = Object.fromEntries(
          Object.entries(properties).map(([name, schema]) => {
            const pattern = (schema as { pattern?: string }).pattern;
            return [name, pattern?.includes("@?") ? { ...schema, pattern: pattern.replaceAll("@?", "") } : schema];
          }),
        );
        expect({
          id: endpoint.id,
          schemas: rules(Object.fromEntries(parameters.map((p) => [p.name, p.schema]))),
        }).toEqual({
          id: endpoint.id,
          schemas: rules(handles),
        });
        expect({ id: endpoint.id, required: parameters.filter((p) => p.required).map((p) => p.name) }).toEqual({
          id: endpoint.id,
          required: input?.required ?? [],
        });
      }
    } finally {
      await client.close();
    }
  });
});

describe("the decisions on SPEC.md's open points", () => {
  it("are in the OpenAPI description and on /docs", async () => {
    expect(doc.info.description).toContain(decisionsMarkdown(DECISIONS));
    const html = await (await server.get("/docs")).text();
    const section = /<section id="decisions"[\s\S]*?<\/section>/.exec(html)?.[0] ?? "";
    const items = [...section.matchAll(/<li>([\s\S]*?)<\/li>/g)].map(([, item]) =>
      (item as string).replace(/<[^>]+>/g, "").replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code))),
    );
    expect(items).toEqual(DECISIONS.map(({ topic, text }) => `${topic}: ${text}`.replaceAll("`", "")));
  });
});

describe("/openapi.json and /docs compressed", () => {
  it("are sent gzipped to a client that takes gzip, and as they are to one that does not", async () => {
    for (const path of ["/openapi.json", "/docs"]) {
      const plain = await fetch(`${server.url}${path}`, { headers: { "accept-encoding": "identity" } });
      expect(plain.headers.get("content-encoding")).toBeNull();
      const text = await plain.text();
      const zipped = await fetch(`${server.url}${path}`, {
        headers: { "accept-encoding": "br, gzip;q=0.8" },
        decompress: false,
      } as RequestInit);
      expect(zipped.headers.get("content-encoding")).toBe("gzip");
      expect(zipped.headers.get("vary")).toBe("accept-encoding");
      const bytes = new Uint8Array(await zipped.arrayBuffer());
      expect(bytes.length).toBeLessThan(text.length / 3);
      expect(new TextDecoder().decode(Bun.gunzipSync(bytes))).toBe(text);
      const refused = await fetch(`${server.url}${path}`, {
        headers: { "accept-encoding": "gzip;q=0" },
        decompress: false,
      } as RequestInit);
      expect(refused.headers.get("content-encoding")).toBeNull();
    }
  });
});

describe("/docs", () => {
  it("is a self-contained HTML page listing every endpoint", async () => {
    const response = await server.get("/docs");
    expect(response.headers.get("content-type")).toContain("text/html");
    const html = await response.text();
    for (const endpoint of catalogue) expect(html).toContain(endpoint.path);
    // Sample responses quote the world's profile image URLs as text; nothing is loaded from elsewhere.
    expect(html).not.toMatch(/<script|(?:src|href)="https?:\/\/(?!127\.0\.0\.1)[a-z]/i);
  });

  it("documents the budget controls and the free account reads, as /openapi.json does", async () => {
    const html = await (await server.get("/docs")).text();
    const budget = /<h2 id="budget">[\s\S]*?(?=<section id="decisions"|<\/main>)/.exec(html)?.[0] ?? "";
    for (const text of [
      "<code>max_credits</code>",
      "<code>dry_run</code>",
      "x-max-credits",
      "key_limit",
      '"fits"',
      "Idempotency-Key",
      "Idempotent-Replayed",
    ]) {
      expect(budget).toContain(text);
    }
    // A key's limit and expiry are not fixed at its creation: the dashboard's key page changes them.
    const keyLimits = /<h3 id="key-limits">[\s\S]*?(?=<h3 )/.exec(budget)?.[0] ?? "";
    expect(keyLimits).toContain('changed later on the key\'s page in the <a href="/dashboard">dashboard</a>');
    for (const read of accountReads) {
      expect(budget).toContain(`<code>${read.path}</code>`);
      expect(doc.paths[read.path]?.get?.parameters?.map((p) => p.name)).toEqual(Object.keys(read.params.entries));
    }
    for (const path of ["/v1/search/recent", "/2/tweets/search/recent"]) {
      const names = doc.paths[path]?.get?.parameters?.map((p) => p.name) ?? [];
      expect(names).toEqual(expect.arrayContaining(["max_credits", "dry_run", "x-max-credits", "Idempotency-Key"]));
    }
  });

  it("lists every monitor operation of /openapi.json with its cost, and what a webhook receiver gets", async () => {
    const html = await (await server.get("/docs")).text();
    expect(html).toContain('<a href="#monitors">Monitors</a>');
    const monitors = /<section id="monitors"[\s\S]*?<\/section>/.exec(html)?.[0] ?? "";
    const listed = [...monitors.matchAll(/<span class="method">(\w+)<\/span> <code>([^<]+)<\/code>/g)].map(
      ([, method, path]) => `${method} ${path}`,
    );
    const described = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith("/v1/monitors"))
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));
    expect(listed.sort()).toEqual(described.sort());
    expect(described.length).toBe(7);
    for (const text of ["1 credit per delivered post", "Social-Signature", "Social-Delivery", "HMAC-SHA256"]) {
      expect(monitors).toContain(text);
    }
  });
});
