// What an agent sees of a read's data. An agent pays for every token it reads, so tweets and users come
// compact by default (the fields a next step usually needs) and whole with view=full; id pages are
// always a plain array of ids. The data schema of the entry says where tweets, users and ids are, so the
// same walk shapes the data and describes it in the tool's output schema.
import { IdObject, type JsonSchema, Tweet, User, UserLookup } from "@social/core";
import * as v from "valibot";

export const VIEWS = ["compact", "full"] as const;
export type View = (typeof VIEWS)[number];

const COMPACT_FIELDS = {
  tweet: [
    "id",
    "text",
    "author_id",
    "created_at",
    "like_count",
    "retweet_count",
    "reply_count",
    "quote_count",
    "bookmark_count",
    "referenced_tweets",
  ],
  user: ["id", "username", "name", "follower_count", "verified"],
} as const;

/** What a tweet or user holds in every view, as its output schema says: the rest is in its text. */
const ALWAYS = {
  tweet: ["id", "text"],
  user: ["id", "username"],
};

type Kind = keyof typeof COMPACT_FIELDS | "id";

type Schema = v.GenericSchema & { type: string };

function kindOf(schema: v.GenericSchema): Kind | undefined {
  if (schema === Tweet) return "tweet";
  if (schema === User || schema === UserLookup) return "user";
  if (schema === IdObject) return "id";
  return undefined;
}

function wrapped(schema: Schema): Schema | undefined {
  return "wrapped" in schema ? (schema.wrapped as Schema) : undefined;
}

function entriesOf(schema: Schema): Record<string, Schema> | undefined {
  return "entries" in schema ? (schema.entries as Record<string, Schema>) : undefined;
}

function optionsOf(schema: Schema): Schema[] {
  return (schema.type === "union" || schema.type === "variant") && "options" in schema
    ? (schema.options as Schema[])
    : [];
}

/** Whether the data of `schema` holds tweets or users anywhere: only such tools take a view. */
export function hasViews(schema: v.GenericSchema): boolean {
  const kind = kindOf(schema);
  if (kind) return kind !== "id";
  const s = schema as Schema;
  const inner = s.type === "array" ? (s as unknown as { item: Schema }).item : wrapped(s);
  if (inner) return hasViews(inner);
  return Object.values(entriesOf(s) ?? {}).some(hasViews) || optionsOf(s).some(hasViews);
}

function pick(value: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const field of fields) if (value[field] !== undefined) picked[field] = value[field];
  return picked;
}

/**
 * Whether `value` has exactly the shape of `schema`: valibot's objects let unknown members through, so
 * a user would pass for an id object ({id}) unless its members are held against the entries too.
 */
function hasShape(schema: Schema, value: unknown): boolean {
  if (!v.is(schema, value)) return false;
  if (schema.type === "array") {
    const [first] = value as unknown[];
    return first === undefined || hasShape((schema as unknown as { item: Schema }).item, first);
  }
  const entries = entriesOf(schema);
  return !entries || Object.keys(value as object).every((name) => name in entries);
}

/** The option of a union the value belongs to; an array is judged by its first item. */
function optionFor(options: readonly Schema[], value: unknown): Schema | undefined {
  const probe = Array.isArray(value) ? value.slice(0, 1) : value;
  return options.find((option) => hasShape(option, probe));
}

/** `value` (data of `schema`, as plain JSON values) as an agent sees it in `view`. */
export function viewData(schema: v.GenericSchema, value: unknown, view: View): unknown {
  if (value === null || value === undefined) return value;
  const kind = kindOf(schema);
  if (kind === "id") return (value as { id: string }).id;
  if (kind) return view === "full" ? value : pick(value as Record<string, unknown>, COMPACT_FIELDS[kind]);
  const s = schema as Schema;
  if (s.type === "array") {
    const item = (s as unknown as { item: Schema }).item;
    return (value as unknown[]).map((each) => viewData(item, each, view));
  }
  const inner = wrapped(s);
  if (inner) return viewData(inner, value, view);
  const entries = entriesOf(s);
  if (entries) {
    const record = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.entries(record).map(([name, each]) => [name, entries[name] ? viewData(entries[name], each, view) : each]),
    );
  }
  const option = optionFor(optionsOf(s), value);
  return option ? viewData(option, value, view) : value;
}

const LEAF_TYPES: Record<string, JsonSchema["type"]> = {
  string: "string",
  number: "number",
  boolean: "boolean",
  picklist: "string",
};

/**
 * The JSON Schema of `schema`'s data in either view, lean on purpose: it is sent in every tools/list,
 * and an agent reads the data, not the schema. A tweet or user is an object with at least its compact
 * fields; other objects name their required members and describe the nested ones.
 */
export function viewJsonSchema(schema: v.GenericSchema): JsonSchema {
  const kind = kindOf(schema);
  if (kind === "id") return { type: "string" };
  if (kind) return { type: "object", required: [...ALWAYS[kind]] };
  const s = schema as Schema;
  if (s.type === "array") return { type: "array", items: viewJsonSchema((s as unknown as { item: Schema }).item) };
  if (s.type === "nullable") return { anyOf: [viewJsonSchema(wrapped(s) as Schema), { type: "null" }] };
  const inner = wrapped(s);
  if (inner) return viewJsonSchema(inner);
  const entries = entriesOf(s);
  if (entries) {
    const required = Object.entries(entries)
      .filter(([, entry]) => !["optional", "exact_optional", "nullish"].includes(entry.type))
      .map(([name]) => name);
    const nested = Object.entries(entries).flatMap(([name, entry]): [string, JsonSchema][] => {
      const described = viewJsonSchema(entry);
      return described.type === "object" || described.type === "array" || described.anyOf ? [[name, described]] : [];
    });
    return { type: "object", ...(nested.length > 0 ? { properties: Object.fromEntries(nested) } : {}), required };
  }
  const options = optionsOf(s);
  if (options.length > 0) return { anyOf: options.map(viewJsonSchema) };
  const type = LEAF_TYPES[s.type];
  return type ? { type } : {};
}
