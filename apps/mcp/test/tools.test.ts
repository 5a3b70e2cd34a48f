import { describe, expect, test } from "bun:test";
import { catalogue, MAX_IDS } from "@social/core";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import * as v from "valibot";
import { ALL_TOOLS, selectTools, TOOLSETS, ToolSelectionError } from "../src/tools.ts";

// Strict mode rejects unknown keywords and misplaced ones, so a schema that compiles under both
// dialects means the same thing to a draft-07 client (the SDK's) and a 2020-12 one (the spec's default).
// The output schemas name the members a result always has without describing each (they are lean on
// purpose), which strict mode's strictRequired alone would flag.
const strict = { strict: true, strictRequired: false, allErrors: true } as const;
const validators = [new Ajv(strict), new Ajv2020(strict)];
for (const ajv of validators) addFormats(ajv);

const everything = selectTools();

function tool(name: string) {
  const found = everything.definitions.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

/** A tools/list answer's size, as a client receives its result. */
const listBytes = (names: { toolsets?: string[]; tools?: string[] } = {}) =>
  JSON.stringify({ tools: selectTools(names).definitions }).length;

describe("tool definitions", () => {
  test("one tool per catalogue entry, named by the entry, the monitor tools and get_credits", () => {
    expect(ALL_TOOLS.map((t) => t.name)).toEqual([
      ...catalogue.map((entry) => entry.tool),
      "list_monitors",
      "get_monitor_matches",
      "get_credits",
    ]);
    expect(everything.definitions.map((definition) => definition.name)).toEqual(ALL_TOOLS.map((t) => t.name));
  });

  test.each(everything.definitions.map((definition) => [definition.name, definition] as const))(
    "%s: schemas compile in draft-07 and 2020-12, annotations read-only and open-world",
    (_name, definition) => {
      for (const ajv of validators) {
        ajv.compile(definition.inputSchema);
        ajv.compile(definition.outputSchema ?? {});
      }
      expect(definition.inputSchema.type).toBe("object");
      expect(definition.outputSchema?.type).toBe("object");
      expect(JSON.stringify(definition)).not.toContain("$schema");
      expect(definition.annotations).toEqual({ readOnlyHint: true, openWorldHint: true });
      expect(definition.description).toMatch(/Cost: ((mode=ids: )?1 credit|none, never charged)/);
    },
  );

  test("bounds, defaults, enums and patterns survive the conversion; handles may start with @", () => {
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
      pattern: "^@?[A-Za-z0-9_]{1,15}$",
    });
    expect(tool("get_relationship").inputSchema.properties?.target).toMatchObject({
      pattern: "^@?[A-Za-z0-9_]{1,15}$",
    });
    expect(tool("get_trends").inputSchema.properties?.woeid).toMatchObject({ default: "1" });
  });

  test("view is offered where tweets or users come back, and nowhere else", () => {
    const withView = everything.definitions.filter((definition) => "view" in (definition.inputSchema.properties ?? {}));
    expect(withView.map((definition) => definition.name).sort()).toEqual(
      catalogue
        .filter(
          (entry) =>
            ![
              "users_relationship",
              "community",
              "communities_search",
              "trends",
              "tweet_article",
              "search_counts",
            ].includes(entry.id),
        )
        .map((entry) => entry.tool)
        .sort(),
    );
    expect(tool("get_tweets").inputSchema.properties?.view).toEqual({ type: "string", enum: ["compact", "full"] });
  });

  test("cross-parameter rules and both graph costs are in the description", () => {
    const followers = tool("get_user_followers").description ?? "";
    expect(followers).toContain("limit is supported only with mode=ids");
    expect(followers).toContain("mode=ids: 1 credit + 1 per 50 returned items");
    expect(followers).toContain("mode=profiles: 1 credit + 1 per returned item");
    expect(tool("get_community_tweets").description).toContain("time_filter is accepted only with sort=likes");
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

  test("tools/list of every tool holds at most 42,000 bytes; each toolset's is printed", () => {
    const sizes = Object.fromEntries([
      ["all", listBytes()],
      ...TOOLSETS.map((toolset) => [toolset, listBytes({ toolsets: [toolset] })]),
    ]);
    console.log(`tools/list bytes: ${JSON.stringify(sizes)}`);
    // The budget and why it is what it is: docs/mcp.md, "A small tools/list".
    expect(sizes.all).toBeLessThanOrEqual(42_000);
  });
});

describe("selection", () => {
  test("each toolset selects its catalogue entries, and every selection has get_credits", () => {
    expect(TOOLSETS).toEqual(["search", "users", "graph", "tweets", "lists", "communities", "workflows", "monitors"]);
    expect(selectTools({ toolsets: ["search"] }).tools.map((t) => t.name)).toEqual([
      "search_recent_tweets",
      "get_trends",
      "search_recent_tweets_enriched",
      "count_recent_tweets",
      "get_credits",
    ]);
    const chosen = selectTools({ toolsets: ["lists", "graph"] }).tools;
    expect(
      chosen.every(
        (t) => t.kind === "account" || (t.kind === "read" && ["lists", "graph"].includes(t.endpoint.toolset)),
      ),
    ).toBe(true);
    expect(chosen.at(-1)?.name).toBe("get_credits");
    // Every entry of the catalogue, the monitor tools and the account tool.
    expect(selectTools().tools).toHaveLength(catalogue.length + 3);
    expect(selectTools({ toolsets: ["monitors"] }).tools.map((t) => t.name)).toEqual([
      "list_monitors",
      "get_monitor_matches",
      "get_credits",
    ]);
  });

  test("tools by name, alone or beside toolsets (their union), in catalogue order", () => {
    expect(selectTools({ tools: ["get_tweet", "get_user"] }).tools.map((t) => t.name)).toEqual([
      "get_user",
      "get_tweet",
      "get_credits",
    ]);
    expect(selectTools({ toolsets: ["lists"], tools: ["get_user"] }).tools.map((t) => t.name)).toEqual([
      "get_user",
      "get_list_tweets",
      "get_list_members",
      "get_list_subscribers",
      "get_credits",
    ]);
  });

  test("an unknown toolset or tool is refused with the known names", () => {
    expect(() => selectTools({ toolsets: ["search", "dms"] })).toThrow(ToolSelectionError);
    expect(() => selectTools({ toolsets: ["dms"] })).toThrow("Unknown toolset dms: choose from search, users, graph");
    expect(() => selectTools({ tools: ["post_tweet"] })).toThrow(
      "Unknown tool post_tweet: choose from search_recent_tweets",
    );
  });

  test("no description nor the instructions name a tool the selection does not hold", () => {
    const names = ALL_TOOLS.map((t) => t.name);
    const selections = [
      selectTools(),
      ...TOOLSETS.map((toolset) => selectTools({ toolsets: [toolset] })),
      selectTools({ tools: ["get_tweet_context"] }),
      selectTools({ tools: ["get_user_tweets", "get_user_media"] }),
    ];
    for (const selection of selections) {
      const held = new Set(selection.tools.map((t) => t.name));
      const texts = [
        selection.instructions,
        ...selection.definitions.map((definition) => definition.description ?? ""),
      ];
      for (const text of texts) {
        const named = names.filter((name) => new RegExp(`\\b${name}\\b`).test(text));
        expect(named.filter((name) => !held.has(name))).toEqual([]);
      }
    }
    // Held, they are named: the guidance still points to neighbours.
    expect(selectTools({ tools: ["get_user_tweets", "get_user_media"] }).definitions[0]?.description).toContain(
      "Use get_user_media for tweets with media only.",
    );
    expect(selectTools().instructions).toContain("get_profile_by_username");
    expect(selectTools({ toolsets: ["search"] }).instructions).not.toContain("workflow");
  });
});
