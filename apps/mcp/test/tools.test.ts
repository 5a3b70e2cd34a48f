import { describe, expect, test } from "bun:test";
import { catalogue, MAX_IDS } from "@social/core";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import * as v from "valibot";
import { ALL_TOOLS, selectTools, TOOLSETS, UnknownToolsetError } from "../src/tools.ts";

// Strict mode rejects unknown keywords and misplaced ones, so a schema that compiles under both
// dialects means the same thing to a draft-07 client (the SDK's) and a 2020-12 one (the spec's default).
const validators = [new Ajv({ strict: true, allErrors: true }), new Ajv2020({ strict: true, allErrors: true })];
for (const ajv of validators) addFormats(ajv);

function tool(name: string) {
  const found = ALL_TOOLS.find((candidate) => candidate.definition.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found.definition;
}

describe("tool definitions", () => {
  test("one tool per catalogue entry, named by the entry, and get_credits", () => {
    expect(ALL_TOOLS).toHaveLength(32);
    expect(ALL_TOOLS.map((t) => t.definition.name)).toEqual([...catalogue.map((entry) => entry.tool), "get_credits"]);
    expect(new Set(ALL_TOOLS.map((t) => t.definition.name)).size).toBe(32);
  });

  test.each(ALL_TOOLS.map((t) => [t.definition.name, t.definition] as const))(
    "%s: schemas compile in draft-07 and 2020-12, annotations read-only",
    (_name, definition) => {
      for (const ajv of validators) {
        ajv.compile(definition.inputSchema);
        ajv.compile(definition.outputSchema ?? {});
      }
      expect(definition.inputSchema.type).toBe("object");
      expect(definition.outputSchema?.type).toBe("object");
      expect(definition.outputSchema?.required).toEqual(["data", "credits"]);
      expect(JSON.stringify(definition)).not.toContain("$schema");
      expect(definition.annotations).toEqual({
        title: definition.title,
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
      expect(definition.description).toMatch(/Cost: ((mode=ids: )?1 credit|none, never charged)/);
    },
  );

  test("bounds, defaults, enums and patterns survive the conversion", () => {
    const search = tool("search_recent_tweets").inputSchema.properties ?? {};
    expect(search.limit).toEqual({ type: "integer", minimum: 1, maximum: 20, default: 20 });
    expect(search.sort_order).toMatchObject({ enum: ["recency", "relevancy"], default: "recency" });
    expect(search.query).toMatchObject({ type: "string", minLength: 1, maxLength: 512 });
    expect(tool("search_recent_tweets").inputSchema.required).toEqual(["query"]);
    expect(tool("search_recent_tweets").inputSchema.additionalProperties).toBe(false);

    const followers = tool("get_user_followers").inputSchema.properties ?? {};
    expect(followers.limit).toEqual({ type: "integer", minimum: 1, maximum: 5000, default: 200 });
    expect(followers.mode).toMatchObject({ enum: ["ids", "profiles"], default: "profiles" });
    expect(followers.id).toMatchObject({ pattern: "^\\d+$" });
    expect(tool("get_user_by_username").inputSchema.properties?.username).toMatchObject({
      pattern: "^[A-Za-z0-9_]{1,15}$",
    });
    expect(tool("get_trends").inputSchema.properties?.woeid).toMatchObject({ default: "1" });
  });

  test("cross-parameter rules and both graph costs are in the description", () => {
    const followers = tool("get_user_followers").description ?? "";
    expect(followers).toContain("limit is supported only with mode=ids");
    expect(followers).toContain("mode=ids: 1 credit + 1 per 50 returned items");
    expect(followers).toContain("mode=profiles: 1 credit + 1 per returned item");
    expect(tool("get_community_tweets").description).toContain("time_filter is accepted only with sort=likes");
    expect(tool("search_recent_tweets").description).toContain("next_token");
    expect(tool("get_user").description).not.toContain("next_token");
  });

  test("the ids pattern accepts exactly what the catalogue's ids rule accepts", () => {
    const getUsers = catalogue.find((entry) => entry.tool === "get_users");
    if (!getUsers) throw new Error("no get_users");
    const matches = new Ajv().compile(tool("get_users").inputSchema);
    const many = (count: number) => Array.from({ length: count }, (_, i) => String(i + 1)).join(",");
    const samples = [
      "1",
      "12,34",
      "1,1",
      many(MAX_IDS),
      many(MAX_IDS + 1),
      "",
      "1,",
      ",1",
      "1, 2",
      "a",
      "9".repeat(20),
    ];
    for (const ids of samples) {
      expect([ids, matches({ ids })]).toEqual([ids, v.safeParse(getUsers.params, { ids }).success]);
    }
  });
});

describe("toolsets", () => {
  test("each toolset selects its catalogue entries, and every selection has get_credits", () => {
    expect(TOOLSETS).toEqual(["search", "users", "graph", "tweets", "lists", "communities", "workflows"]);
    expect(selectTools(["search"]).map((t) => t.definition.name)).toEqual([
      "search_recent_tweets",
      "get_trends",
      "search_recent_tweets_enriched",
      "get_credits",
    ]);
    const chosen = selectTools(["lists", "graph"]);
    expect(chosen.every((t) => t.kind === "account" || ["lists", "graph"].includes(t.endpoint.toolset))).toBe(true);
    expect(chosen.at(-1)?.definition.name).toBe("get_credits");
    expect(selectTools()).toHaveLength(32);
  });

  test("an unknown toolset is refused with the known names", () => {
    expect(() => selectTools(["search", "dms"])).toThrow(UnknownToolsetError);
    expect(() => selectTools(["dms"])).toThrow("Unknown toolset dms: choose from search, users, graph");
  });
});
