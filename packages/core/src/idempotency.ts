// Safe retries: a charged request sent with an Idempotency-Key is charged once however often it is sent.
// The first one reserves the key (per account) and, once answered, stores its answer for 24 hours; a
// retry of the same request gets that answer again, byte for byte, uncharged, and marked
// Idempotent-Replayed. The stored answer rather than a fresh read: the retry then holds exactly what was
// paid for (the same data, the same next_token), even if the world moved since. The same key with a
// different request is refused; a retry while the first is still running waits for its answer.
import * as v from "valibot";
import { ApiError, invalidRequest } from "./errors.ts";
import { canonicalEntries } from "./params.ts";
import type { IdempotencyRecords, IdempotencyScope, StoredAnswer } from "./ports/idempotency.ts";

/** How long a retry waits for the first request's answer before it is told to come back. */
export const IN_PROGRESS_WAIT_MS = 10_000;
export const IDEMPOTENCY_HEADER = "idempotency-key";
/** How errors name the key: the header as people write it. */
export const IDEMPOTENCY_PARAMETER = "Idempotency-Key";

const KEY_RULE = "must be 1 to 255 printable ASCII characters";

/** What the Idempotency-Key header does, for OpenAPI and the docs page. */
export const IDEMPOTENCY_KEY_DESCRIPTION =
  "Any unique text: the same request sent again with the same key within 24 hours gets the first answer again (Idempotent-Replayed: true) and is not charged again; the same key with a different request is 400; while the first is still running, a retry waits for its answer (409 request_in_progress after 10 s).";

/** An Idempotency-Key: the header on /v1 and /2, the idempotency_key argument in MCP, and OpenAPI's. */
export const IdempotencyKeySchema = v.pipe(
  v.string(KEY_RULE),
  v.regex(/^[\x20-\x7e]{1,255}$/, KEY_RULE),
  v.description(IDEMPOTENCY_KEY_DESCRIPTION),
);

/** The key a request sent, checked against IdempotencyKeySchema. */
export function idempotencyKeyOf(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (!v.is(IdempotencyKeySchema, value)) {
    throw invalidRequest(`Invalid request: Idempotency-Key ${KEY_RULE}`, [
      { parameter: IDEMPOTENCY_PARAMETER, message: KEY_RULE },
    ]);
  }
  return value;
}

/** What makes two requests "the same": the operation and every value sent, in a canonical order. */
export function requestFingerprint(operation: string, values: Record<string, unknown>): string {
  return JSON.stringify([operation, canonicalEntries(values)]);
}

export function idempotencyMismatch(): ApiError {
  const message = "was already used for a different request: send a new key for a new request";
  return invalidRequest(`Invalid request: Idempotency-Key ${message}`, [{ parameter: IDEMPOTENCY_PARAMETER, message }]);
}

export function idempotencyInProgress(): ApiError {
  return new ApiError(
    "request_in_progress",
    "A request with this Idempotency-Key is still being answered: retry it in a moment to get its answer",
    { retryAfter: 1 },
  );
}

/** A request whose reservation a retry took over (it ran past ABANDONED_AFTER_MS): refused, uncharged. */
export function idempotencyTakenOver(): ApiError {
  return new ApiError(
    "request_in_progress",
    "A retry with this Idempotency-Key took this request over after it had run for a minute: the retry's answer is the one kept, and this request was not charged",
  );
}

/**
 * Reserves the key for this request, waiting while another request holds it, up to IN_PROGRESS_WAIT_MS.
 * Resolves to the answer to replay, or to undefined once this request owns the key (having given back
 * the charge of a dead owner, whose answer nobody received).
 */
export async function claimIdempotencyKey(
  records: IdempotencyRecords,
  refund: (accountId: string, requestId: string) => Promise<void>,
  scope: IdempotencyScope,
  fingerprint: string,
  requestId: string,
): Promise<StoredAnswer | undefined> {
  const giveUpAt = Date.now() + IN_PROGRESS_WAIT_MS;
  for (;;) {
    const reservation = await records.reserve(scope, fingerprint, requestId, Date.now());
    switch (reservation.kind) {
      case "reserved":
        if (reservation.abandonedBy !== undefined) await refund(scope.accountId, reservation.abandonedBy);
        return undefined;
      case "replay":
        return reservation.answer;
      case "mismatch":
        throw idempotencyMismatch();
      case "in_progress":
        if (Date.now() >= giveUpAt) throw idempotencyInProgress();
        await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}
