// What a customer sets on a monitor: the JSON bodies of POST and PATCH /v1/monitors, checked field by
// field (each refusal an invalid_request naming its field, `delivery.url` for the URL), and a monitor's
// id as a path names it. Nothing reaches a store before it passes here.
import * as v from "valibot";
import { MAX_BALANCE } from "../billing/amounts.ts";
import { type ApiError, invalidRequest, notFound } from "../errors.ts";
import { searchQueryParam } from "../params.ts";
import { parseWith } from "../pipeline/validate.ts";
import type { MonitorChanges } from "../ports/monitors.ts";
import { MONITOR_LIMITS, type MonitorDelivery } from "./model.ts";
import { parseMonitorQuery } from "./query.ts";
import { webhookUrlProblem } from "./webhook-url.ts";

/** newMonitorId's form: `mon_` and 16 hex digits. */
export const MONITOR_ID_PATTERN = /^mon_[0-9a-f]{16}$/;

/** A monitor id as a path or an argument gives it: 404 for one that cannot be any monitor's. */
export function monitorIdOf(text: string): string {
  if (!MONITOR_ID_PATTERN.test(text)) throw noSuchMonitor(text);
  return text;
}

/** Also what another account's monitor is: whether it exists is not this caller's to know. */
export function noSuchMonitor(id: string): ApiError {
  return notFound(`No monitor ${id.slice(0, 40)} on this account: GET /v1/monitors lists them`);
}

function fieldIssueMessage(issue: v.StrictObjectIssue): string {
  if (!issue.path) return "must be a JSON object of a monitor's fields";
  if (issue.expected === "never") return "is not a field of a monitor";
  return issue.expected === "Object" ? "must be an object" : "is required";
}

const nameField = v.pipe(
  v.string("must be a string"),
  v.minLength(1, "must not be empty"),
  v.maxLength(MONITOR_LIMITS.nameLength, `must be at most ${MONITOR_LIMITS.nameLength} characters`),
);

const deliveryField = v.variant(
  "type",
  [
    v.strictObject({ type: v.literal("webhook"), url: v.string("must be a string") }, fieldIssueMessage),
    v.strictObject({ type: v.literal("pull") }, fieldIssueMessage),
  ],
  'must be {"type":"webhook","url":"https://…"} or {"type":"pull"}',
);

const capRule = `must be an integer from 1 to ${MAX_BALANCE}`;
const capField = v.pipe(
  v.number(capRule),
  v.integer(capRule),
  v.minValue(1, capRule),
  v.maxValue(MAX_BALANCE, capRule),
);

const CreateBody = v.strictObject(
  {
    query: searchQueryParam,
    name: v.exactOptional(v.nullable(nameField)),
    delivery: v.exactOptional(deliveryField),
    daily_credit_cap: v.exactOptional(v.nullable(capField)),
  },
  fieldIssueMessage,
);

const UpdateBody = v.strictObject(
  {
    query: v.exactOptional(searchQueryParam),
    name: v.exactOptional(v.nullable(nameField)),
    delivery: v.exactOptional(deliveryField),
    daily_credit_cap: v.exactOptional(v.nullable(capField)),
    status: v.exactOptional(v.picklist(["active", "paused"], "must be active or paused")),
  },
  fieldIssueMessage,
);

/** The request body of POST /v1/monitors as JSON Schema writers and OpenAPI see it. */
export const MonitorCreateSchema = CreateBody;
export const MonitorUpdateSchema = UpdateBody;

export interface MonitorSettingsOptions {
  /** Webhooks may reach loopback and private addresses (MONITOR_ALLOW_PRIVATE). */
  allowPrivateWebhooks: boolean;
}

export interface NewMonitorSettings {
  name?: string;
  query: string;
  delivery: MonitorDelivery;
  dailyCreditCap?: number;
}

function checkDelivery(delivery: MonitorDelivery | undefined, options: MonitorSettingsOptions): void {
  if (delivery?.type !== "webhook") return;
  const problem = webhookUrlProblem(delivery.url, options.allowPrivateWebhooks);
  if (problem)
    throw invalidRequest(`Invalid request: delivery.url: ${problem}`, [
      { parameter: "delivery.url", message: problem },
    ]);
}

/** A POST body: pull delivery unless it names one, no name and no cap unless given. */
export function newMonitorSettings(body: unknown, options: MonitorSettingsOptions): NewMonitorSettings {
  const fields = parseWith(CreateBody, body as Record<string, unknown>) as v.InferOutput<typeof CreateBody>;
  parseMonitorQuery(fields.query);
  checkDelivery(fields.delivery, options);
  return {
    query: fields.query,
    delivery: fields.delivery ?? { type: "pull" },
    ...(fields.name == null ? {} : { name: fields.name }),
    ...(fields.daily_credit_cap == null ? {} : { dailyCreditCap: fields.daily_credit_cap }),
  };
}

/** A PATCH body: the fields it names (null clears name or daily_credit_cap); at least one. */
export function monitorChanges(body: unknown, options: MonitorSettingsOptions): MonitorChanges {
  const fields = parseWith(UpdateBody, body as Record<string, unknown>) as v.InferOutput<typeof UpdateBody>;
  if (Object.keys(fields).length === 0) {
    const message = `must name at least one field to change: ${Object.keys(UpdateBody.entries).join(", ")}`;
    throw invalidRequest(`Invalid request: the body ${message}`, [{ message: `The body ${message}` }]);
  }
  if (fields.query !== undefined) parseMonitorQuery(fields.query);
  checkDelivery(fields.delivery, options);
  return {
    ...(fields.query === undefined ? {} : { query: fields.query }),
    ...(fields.name === undefined ? {} : { name: fields.name }),
    ...(fields.delivery === undefined ? {} : { delivery: fields.delivery }),
    ...(fields.daily_credit_cap === undefined ? {} : { dailyCreditCap: fields.daily_credit_cap }),
    ...(fields.status === undefined ? {} : { status: fields.status }),
  };
}
