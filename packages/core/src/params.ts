// Parameter schemas shared by the catalogue entries. Values are typed (numbers are numbers): MCP
// arguments arrive typed, and the HTTP layers turn digit strings into numbers with `decodeParams`
// before validating, so every surface enforces the same rules with the same messages.
import * as v from "valibot";
import { ID_PATTERN, USERNAME_PATTERN } from "./model.ts";

/** Longest id accepted: a signed 64-bit integer has at most 19 digits, so longer ids cannot exist. */
export const MAX_ID_DIGITS = 19;
/** Most ids in one `ids` list, as in X API v2's multi-lookups. */
export const MAX_IDS = 100;
export const MAX_QUERY_LENGTH = 512;
export const MAX_TOKEN_LENGTH = 512;

/**
 * The largest id accepted anywhere: by the importer, by lookups, in since_id / until_id and in cursors.
 * It is one below the largest signed 64-bit integer, which the stores keep as ID_CEILING, the bound above
 * every id: a newest-first walk starts below it, and an id plus one (the end of a world's ids, the first
 * id after a since_id) reaches it at most, never past what a database's int64 holds.
 */
export const MAX_ID = 2n ** 63n - 2n;
/** Above every id a world holds: where a newest-first walk starts, and what an open until_id means. */
export const ID_CEILING = MAX_ID + 1n;

function atMost(id: string, most: bigint): string {
  const value = BigInt(id);
  return String(value > most ? most : value);
}

/** A since_id of up to 19 digits as stores bound it: no id lies past MAX_ID, so past it means MAX_ID. */
export function sinceIdBound(id: string): string {
  return atMost(id, MAX_ID);
}

/** An until_id of up to 19 digits as stores bound it: every id lies below ID_CEILING, so past it means ID_CEILING. */
export function untilIdBound(id: string): string {
  return atMost(id, ID_CEILING);
}

export const idParam = v.pipe(
  v.string("must be a string"),
  v.regex(ID_PATTERN, "must be digits only (^\\d+$)"),
  v.maxLength(MAX_ID_DIGITS, `must be at most ${MAX_ID_DIGITS} digits`),
);

export const usernameParam = v.pipe(
  v.string("must be a string"),
  v.regex(USERNAME_PATTERN, "must be 1 to 15 letters, digits or underscores (^[A-Za-z0-9_]{1,15}$)"),
);

export const idsParam = v.pipe(
  v.string("must be a comma-separated list of ids"),
  v.transform((text) => text.split(",")),
  v.minLength(1, "must hold at least one id"),
  v.maxLength(MAX_IDS, `must hold at most ${MAX_IDS} ids`),
  v.check(
    (ids) => ids.every((id) => ID_PATTERN.test(id) && id.length <= MAX_ID_DIGITS),
    "must be comma-separated ids of digits only, with no spaces or empty entries",
  ),
  // A repeated id is answered once, as X API v2 does.
  v.transform((ids) => [...new Set(ids)]),
);

const USERNAME = USERNAME_PATTERN.source.slice(1, -1);
/** The count bound is in the pattern, so the published JSON Schema states it too. */
const USERNAME_LIST = new RegExp(`^${USERNAME}(,${USERNAME}){0,${MAX_IDS - 1}}$`);

/** A comma-separated list of usernames, as X API v2's users/by takes them; the same one twice is read once. */
export const usernamesParam = v.pipe(
  v.string("must be a comma-separated list of usernames"),
  v.regex(
    USERNAME_LIST,
    `must be 1 to ${MAX_IDS} comma-separated usernames, each 1 to 15 letters, digits or underscores, no spaces`,
  ),
  v.transform((text) => text.split(",")),
  v.transform((names) => distinctUsernames(names)),
);

/** Usernames without repeats, whatever their case: each as first written. */
export function distinctUsernames(names: readonly string[]): string[] {
  const seen = new Set<string>();
  return names.filter((name) => !seen.has(name.toLowerCase()) && seen.add(name.toLowerCase()));
}

export const nextTokenParam = v.optional(
  v.pipe(
    v.string("must be a string"),
    v.minLength(1, "must not be empty"),
    v.maxLength(MAX_TOKEN_LENGTH, "is not a token issued by this service"),
    v.description("The previous result's next_token"),
  ),
);

export function integerParam(min: number, max: number, fallback: number) {
  const rule = `must be an integer from ${min} to ${max}`;
  return v.optional(v.pipe(v.number(rule), v.integer(rule), v.minValue(min, rule), v.maxValue(max, rule)), fallback);
}

export function choiceParam<const T extends readonly [string, ...string[]]>(choices: T) {
  return v.picklist(choices, `must be one of ${choices.join(", ")}`);
}

export const searchQueryParam = v.pipe(
  v.string("must be a string"),
  v.minLength(1, "must not be empty"),
  v.maxLength(MAX_QUERY_LENGTH, `must be at most ${MAX_QUERY_LENGTH} characters`),
);

/**
 * The message of an issue raised by a strict parameter object itself. Valibot raises the same kind of
 * issue for an unknown name (expecting "never") and for a missing required one (expecting the name),
 * so a single message would call a missing parameter unknown.
 */
export function paramsIssueMessage(issue: v.StrictObjectIssue): string {
  if (!issue.path) return "must be an object of named parameters";
  return issue.expected === "never" ? "is not a parameter of this endpoint" : "is required";
}

function unwrap(schema: v.GenericSchema): v.GenericSchema {
  return "wrapped" in schema ? unwrap(schema.wrapped as v.GenericSchema) : schema;
}

/** The names of the parameters of an object schema whose values are numbers. */
export function numericParams(schema: v.GenericSchema): ReadonlySet<string> {
  const entries = "entries" in schema ? (schema.entries as Record<string, v.GenericSchema>) : {};
  return new Set(Object.keys(entries).filter((name) => unwrap(entries[name] as v.GenericSchema).type === "number"));
}

/**
 * Raw string parameters (a URL's query and path) → the values the schema validates. A parameter
 * given more than once is refused here, because no parameter of this API is a list by repetition.
 * The record has no prototype: on a plain object `__proto__=1` would set the prototype instead of a
 * parameter, and the strict schema would never see the unknown name.
 */
export function decodeParams(
  raw: Iterable<[string, string]>,
  numeric: ReadonlySet<string>,
): { values: Record<string, unknown>; repeated: string[] } {
  const values: Record<string, unknown> = Object.create(null);
  const repeated: string[] = [];
  for (const [name, text] of raw) {
    if (Object.hasOwn(values, name)) {
      repeated.push(name);
      continue;
    }
    values[name] = numeric.has(name) && /^-?\d{1,20}$/.test(text) ? Number(text) : text;
  }
  return { values, repeated };
}

/**
 * Parameter values in one canonical order, as [name, value] pairs, leaving out those not given and
 * those named in `omit`: what two requests must share to be "the same" (a page token's binding, an
 * Idempotency-Key's fingerprint).
 */
export function canonicalEntries(
  values: Record<string, unknown>,
  omit: ReadonlySet<string> = new Set(),
): [string, unknown][] {
  return Object.keys(values)
    .filter((name) => !omit.has(name) && values[name] !== undefined)
    .sort()
    .map((name) => [name, values[name]]);
}
