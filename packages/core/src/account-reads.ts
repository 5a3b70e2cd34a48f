// The free reads about the caller's own account: its balance and key (GET /v1/account, MCP get_credits)
// and its usage (GET /v1/usage). They are authenticated and rate-limited like every request and never
// charged; like the catalogue, each is described once and every surface derives its form from it.
import * as v from "valibot";
import { catalogue } from "./catalogue/index.ts";
import { strict } from "./catalogue/shared.ts";
import type { ParamsSchema } from "./endpoint.ts";
import { invalidRequest } from "./errors.ts";
import { MONITOR_ENDPOINTS } from "./monitors/endpoints.ts";
import { choiceParam } from "./params.ts";
import { type ActiveKey, admitted, parseWith, type ReadFailure, type Services } from "./pipeline/index.ts";
import type { Accounts, KeyInfo, UsageGroup, UsageGrouping } from "./ports/accounts.ts";
import type { RateState } from "./ports/rate-limiter.ts";

const DAY_MS = 86_400_000;
/** The longest range one usage request covers: a year, leap day included. */
export const MAX_USAGE_DAYS = 366;
/** The range a usage request covers when it names none: the last 30 UTC days, today included. */
export const DEFAULT_USAGE_DAYS = 30;

export interface AccountReadContext<P> {
  accounts: Accounts;
  key: ActiveKey;
  /** The account's balance, read for this request. */
  balance: number;
  params: P;
  now: number;
}

export interface AccountRead<P extends ParamsSchema = ParamsSchema, S extends v.GenericSchema = v.GenericSchema> {
  id: "account" | "usage";
  path: string;
  /** The MCP tool, for the reads an agent needs while it works. */
  tool?: string;
  summary: string;
  params: P;
  data: S;
  run: (context: AccountReadContext<v.InferOutput<P>>) => Promise<v.InferOutput<S>>;
}

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
const Instant = v.pipe(v.string(), v.isoTimestamp(), v.description("UTC, ISO 8601"));

const KeyData = v.strictObject({
  id: v.string(),
  name: v.string(),
  prefix: v.pipe(v.string(), v.description("The key's first characters, to tell it apart")),
  limit: v.pipe(
    v.nullable(v.strictObject({ credits: Count, per: v.picklist(["total", "day"]), remaining: Count })),
    v.description("The key's own spending limit and what is left of it now; null: only the balance limits it"),
  ),
  expires_at: v.pipe(v.nullable(Instant), v.description("From then on the key is refused; null: never")),
});

const AccountData = v.strictObject({
  account_id: v.string(),
  balance: v.pipe(Count, v.description("Credits left on the account")),
  key: KeyData,
});

const iso = (ms: number) => new Date(ms).toISOString();

function keyData(key: KeyInfo): v.InferOutput<typeof KeyData> {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    limit: key.allowance,
    expires_at: key.expiresAt === null ? null : iso(key.expiresAt),
  };
}

function defineAccountRead<P extends ParamsSchema, S extends v.GenericSchema>(read: AccountRead<P, S>): AccountRead {
  return read as unknown as AccountRead;
}

export const accountOverview = defineAccountRead({
  id: "account",
  path: "/v1/account",
  tool: "get_credits",
  summary:
    "The account's balance and the calling key: its limit and what is left of it, and its expiry. Free: never charged.",
  params: strict({}),
  data: AccountData,
  run: async ({ accounts, key, balance }) => {
    const info = await accounts.key(key.keyId);
    if (!info) throw new Error(`key ${key.keyId} authenticated but not found`);
    return { account_id: key.accountId, balance, key: keyData(info) };
  },
});

const dateParam = (what: string) =>
  v.optional(v.pipe(v.string(), v.isoDate("must be a date written YYYY-MM-DD"), v.description(what)));

const UsageParams = strict({
  from: dateParam(`The first UTC day counted, YYYY-MM-DD; by default ${DEFAULT_USAGE_DAYS - 1} days before \`to\``),
  to: dateParam("The last UTC day counted, YYYY-MM-DD; by default today"),
  group_by: v.optional(choiceParam(["day", "endpoint", "key"]), "day"),
  format: v.pipe(
    v.optional(choiceParam(["json", "csv"])),
    v.description("csv for a spreadsheet (as Accept: text/csv does); json by default"),
  ),
});

const UsageRow = v.strictObject({
  day: v.exactOptional(v.string()),
  endpoint: v.exactOptional(v.string()),
  key_id: v.exactOptional(v.string()),
  requests: Count,
  credits: Count,
});

const UsageData = v.strictObject({
  from: v.string(),
  to: v.string(),
  group_by: v.picklist(["day", "endpoint", "key"]),
  total: v.strictObject({ requests: Count, credits: Count }),
  groups: v.array(UsageRow),
});

/** The column each grouping names its group by, in JSON and as the CSV's first column. */
export const USAGE_GROUP_NAME: Readonly<Record<UsageGrouping, "day" | "endpoint" | "key_id">> = {
  day: "day",
  endpoint: "endpoint",
  key: "key_id",
};

/** A row as customers read it: an endpoint by its name, as the docs and the dashboard name it. */
function usageRow(group: UsageGroup, groupBy: UsageGrouping) {
  const name = groupBy === "endpoint" ? endpointName(group.group) : group.group;
  return { [USAGE_GROUP_NAME[groupBy]]: name, requests: group.requests, credits: group.credits };
}

/** The range's first and last UTC day (both counted), checked against each other and the longest range. */
function usageRange(from: string | undefined, to: string | undefined, now: number): { first: number; last: number } {
  // isoDate lets 2026-02-31 through; the calendar does not.
  const day = (text: string, parameter: string) => {
    const ms = Date.parse(`${text}T00:00:00Z`);
    if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text) {
      throw invalidRequest(`Invalid request: ${parameter} is not a date of the calendar`, [
        { parameter, message: "is not a date of the calendar" },
      ]);
    }
    return ms / DAY_MS;
  };
  const last = to === undefined ? Math.floor(now / DAY_MS) : day(to, "to");
  const first = from === undefined ? last - (DEFAULT_USAGE_DAYS - 1) : day(from, "from");
  if (first > last) {
    throw invalidRequest("Invalid request: from must not be after to", [
      { parameter: "from", message: "must not be after to" },
    ]);
  }
  if (last - first + 1 > MAX_USAGE_DAYS) {
    const message = `must be at most ${MAX_USAGE_DAYS} days before to`;
    throw invalidRequest(`Invalid request: from ${message}`, [{ parameter: "from", message }]);
  }
  return { first, last };
}

export const usageReport = defineAccountRead({
  id: "usage",
  path: "/v1/usage",
  summary: `The account's charged requests and credits in a range of UTC days (at most ${MAX_USAGE_DAYS}), by day, endpoint or key; as CSV with format=csv or Accept: text/csv. Free: never charged.`,
  params: UsageParams,
  data: UsageData,
  run: ({ accounts, key, params, now }) => usageReportOf(accounts, key.accountId, params, now),
});

/** What the usage report says, whoever asks (GET /v1/usage, the dashboard's usage page and its CSV). */
export type UsageReport = v.InferOutput<typeof UsageData>;

/**
 * An account's usage report for a range of UTC days (`from` and `to`, YYYY-MM-DD, by default the last
 * 30), grouped; an invalid_request ApiError for a range that is no range of the calendar or too long.
 */
export async function usageReportOf(
  accounts: Accounts,
  accountId: string,
  params: { from?: string | undefined; to?: string | undefined; group_by: UsageGrouping },
  now: number,
): Promise<UsageReport> {
  const { first, last } = usageRange(params.from, params.to, now);
  const groupBy = params.group_by;
  const groups = await accounts.usageSummary(accountId, { from: first * DAY_MS, to: (last + 1) * DAY_MS, groupBy });
  return {
    from: iso(first * DAY_MS).slice(0, 10),
    to: iso(last * DAY_MS).slice(0, 10),
    group_by: groupBy,
    total: {
      requests: groups.reduce((sum, group) => sum + group.requests, 0),
      credits: groups.reduce((sum, group) => sum + group.credits, 0),
    },
    groups: groups.map((group) => usageRow(group, groupBy)),
  };
}

export const accountReads: readonly AccountRead[] = [accountOverview, usageReport];

/**
 * Every endpoint a usage row or the request log names, as [id, name]: the catalogue's and the account
 * reads by their path, the monitors' by their names (MONITOR_ENDPOINTS).
 */
export const namedEndpoints: readonly (readonly [id: string, name: string])[] = [
  ...catalogue.map((endpoint) => [endpoint.id, endpoint.path] as const),
  ...accountReads.map((read) => [read.id, read.path] as const),
  ...Object.entries(MONITOR_ENDPOINTS),
];

const ENDPOINT_NAMES: ReadonlyMap<string, string> = new Map(namedEndpoints);

/** Usage rows and the request log store an endpoint's id; customers read it by its name. */
export function endpointName(endpointId: string): string {
  return ENDPOINT_NAMES.get(endpointId) ?? endpointId;
}

export interface AccountReadRequest {
  read: AccountRead;
  params: Record<string, unknown>;
  repeated?: readonly string[];
  apiKey: string | undefined;
  requestId: string;
  /** What the client called (calledAs), for the request log. */
  call?: string;
  /** performance.now() when the request arrived, for the request log; the read's start when absent. */
  receivedAt?: number;
  /** This request's rate-limit state when its surface already counted it (MCP counts each POST once). */
  rate?: RateState;
}

export type AccountReadOutcome =
  | { ok: true; data: unknown; credits: { charged: 0; remaining: number }; rate: RateState }
  | ReadFailure;

/** Authenticate → rate limit → validate → read, as for a charged read, with nothing to charge. */
export function executeAccountRead(services: Services, request: AccountReadRequest): Promise<AccountReadOutcome> {
  // Free: every answer is an entry of the request log.
  const logged = {
    requestId: request.requestId,
    endpoint: request.read.id,
    ...(request.call === undefined ? {} : { call: request.call }),
    receivedAt: request.receivedAt ?? performance.now(),
    charged: () => false,
  };
  return admitted(
    services,
    request.apiKey,
    request.rate,
    async (key, rate) => {
      const params = parseWith(request.read.params, request.params, request.repeated);
      // Read now rather than from the key's check, which a process may keep for a second.
      const balance = await services.ledger.balance(key.accountId);
      const data = await request.read.run({ accounts: services.accounts, key, balance, params, now: Date.now() });
      return { ok: true as const, data, credits: { charged: 0 as const, remaining: balance }, rate };
    },
    logged,
  );
}
