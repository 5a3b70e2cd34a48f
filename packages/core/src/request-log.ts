// The customer's request log: every request made with one of an account's keys, answered or refused,
// so the dashboard can explain each answer. A charged request is its usage row (written in the debit's
// own transaction, with its duration); every other one (a refusal, a quote, a replay, a free account
// read) is an entry of the RequestLog port, appended without waiting and written in batches, so neither
// kind adds a write to the charged path. Entries older than the retention (REQUEST_LOG_DAYS) are purged.
// This module holds what both adapters compute the same way around the port (ports/request-log.ts).
import type { ApiError } from "./errors.ts";
import type {
  LoggedRefusal,
  LoggedRequest,
  LogPosition,
  RequestLogPage,
  RequestLogQuery,
  StatusFilter,
} from "./ports/request-log.ts";

/**
 * A 402 for lack of credits on the account and one for a key's own limit answer alike
 * (`insufficient_credits`, told apart by `details.reason`); the log names the second `key_limit`, so
 * that the dashboard lists, counts and warns of each apart.
 */
export const BALANCE_REFUSAL: LoggedRefusal = { status: 402, errorCode: "insufficient_credits" };
export const KEY_LIMIT_REFUSAL: LoggedRefusal = { status: 402, errorCode: "key_limit" };

/** The code a refusal is logged with: its error code, a key's limit named apart. */
export function loggedErrorCode(error: ApiError): string {
  return error.credits?.reason === "key_limit" ? KEY_LIMIT_REFUSAL.errorCode : error.code;
}

/** The most of a call the log keeps: a path and its parameters, never a page of them. */
export const CALL_MAX_LENGTH = 2000;

/** Text shaped like an API key, sent where no key belongs, is not kept. */
const SECRET_VALUE = /sk_(live|test)_[0-9A-Za-z]+/g;
const SECRET_SHAPE = /sk_(live|test)_[0-9A-Za-z]/;
const REMOVED = "[removed]";
/** How many times over a text is decoded in search of a key: deeper than a client's own quoting. */
const DECODINGS_TRIED = 8;

/** One round of percent-decoding; a run that is no valid UTF-8 has its ASCII bytes decoded alone. */
function decodedOnce(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run.replace(/%([0-7][0-9A-Fa-f])/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    }
  });
}

/**
 * `text` with every API key in it removed, whether sent as it is or percent-encoded (any number of times
 * over): then as decoded, so that no encoding of the key is left. Text holding none is kept as it is;
 * text still encoding something after DECODINGS_TRIED rounds is removed whole.
 */
export function withoutSecrets(text: string): string {
  let decoded = text;
  for (let round = 0; round <= DECODINGS_TRIED; round++) {
    if (SECRET_SHAPE.test(decoded)) return decoded.replace(SECRET_VALUE, REMOVED);
    const next = decodedOnce(decoded);
    if (next === decoded) return text;
    decoded = next;
  }
  return REMOVED;
}

/** A query without keys: as sent when it holds none, else its parameters each scrubbed, re-encoded. */
function queryWithoutSecrets(query: string): string {
  const pairs = [...new URLSearchParams(query)];
  const kept = pairs.map(([name, value]) => [withoutSecrets(name), withoutSecrets(value)]);
  const changed = kept.some(([name, value], i) => name !== pairs[i]?.[0] || value !== pairs[i]?.[1]);
  return changed ? new URLSearchParams(kept).toString() : query;
}

/**
 * What the client called as the request log keeps it: the path and its query as sent (so a /2 call
 * shows as /2), without anything shaped like an API key in any encoding (each path segment and each
 * parameter's name and value decoded), cut at CALL_MAX_LENGTH.
 */
export function calledAs(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const target = start < 0 ? "/" : (url.slice(start).split("#")[0] ?? "/");
  const mark = target.indexOf("?");
  const path = (mark < 0 ? target : target.slice(0, mark)).split("/").map(withoutSecrets).join("/");
  const kept = mark < 0 ? path : `${path}?${queryWithoutSecrets(target.slice(mark + 1))}`;
  return kept.length > CALL_MAX_LENGTH ? `${kept.slice(0, CALL_MAX_LENGTH - 1)}…` : kept;
}

/** The statuses a filter keeps, lowest and highest: how both adapters bind it. */
export function statusRange(filter: StatusFilter): [number, number] {
  if (filter === "all") return [0, 999];
  if (filter === "ok") return [0, 399];
  if (filter === "error") return [400, 999];
  return [filter, filter];
}

/** The position of the first entry, above every other. */
export const LOG_TOP: LogPosition = { createdAt: Number.MAX_SAFE_INTEGER, requestId: "" };

function positionOf(entry: LoggedRequest): LogPosition {
  return { createdAt: entry.createdAt, requestId: entry.requestId };
}

/**
 * How both adapters make a page of `limit + 1` rows read from the query's position: below it newest
 * first, or (with `after`) above it oldest first. A page holds `limit`, newest first; one row more tells
 * that there is more on the side read. The side a page was read from has more too: at least the entry
 * whose position it was read from (the log only loses its oldest entries, to the retention).
 */
export function logPage(
  rows: readonly LoggedRequest[],
  query: Pick<RequestLogQuery, "limit" | "before" | "after">,
): RequestLogPage {
  const above = query.after !== undefined;
  const kept = rows.slice(0, query.limit);
  const entries = above ? kept.reverse() : kept;
  const first = entries[0];
  const last = entries.at(-1);
  const more = rows.length > query.limit;
  const older = above || more ? last : undefined;
  const newer = above ? (more ? first : undefined) : query.before && first;
  return { entries, ...(older ? { next: positionOf(older) } : {}), ...(newer ? { newer: positionOf(newer) } : {}) };
}
