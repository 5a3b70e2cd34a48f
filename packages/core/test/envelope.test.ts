import assert from "node:assert/strict";
import { describe, it } from "node:test";
import * as v from "valibot";
import { insufficientCredits } from "../src/billing/credit-refusal.ts";
import {
  ErrorEnvelopeSchema,
  errorEnvelope,
  helpLinksOf,
  successEnvelope,
  successEnvelopeSchema,
  successEnvelopeText,
} from "../src/envelope.ts";
import { ApiError, ERROR_STATUS } from "../src/errors.ts";
import { JsonText, plainData } from "../src/json-text.ts";

const HELP = helpLinksOf("https://example.test");

describe("envelopes", () => {
  it("puts next_token in meta.pagination only when another page exists", () => {
    const last = successEnvelope([1], "req_1", { charged: 2, remaining: 98 });
    assert.deepEqual(last, { data: [1], meta: { request_id: "req_1", credits: { charged: 2, remaining: 98 } } });
    const more = successEnvelope([1], "req_2", { charged: 2, remaining: 96 }, "tok");
    assert.deepEqual(more.meta.pagination, { next_token: "tok" });
    const schema = successEnvelopeSchema(v.array(v.number()));
    assert.ok(v.is(schema, last) && v.is(schema, more));
  });

  it("maps the eight codes of SPEC.md, the idempotent retry's conflict and the monitors' two, to their statuses", () => {
    assert.deepEqual(ERROR_STATUS, {
      invalid_request: 400,
      invalid_api_key: 401,
      revoked_api_key: 401,
      insufficient_credits: 402,
      endpoint_not_found: 404,
      request_in_progress: 409,
      monitor_delivers_by_webhook: 409,
      rate_limited: 429,
      too_many_streams: 429,
      internal_error: 500,
      service_unavailable: 503,
    });
  });

  it("renders every error in one layout, with help_url only on 402", () => {
    for (const code of Object.keys(ERROR_STATUS) as (keyof typeof ERROR_STATUS)[]) {
      const body = errorEnvelope(new ApiError(code, `message for ${code}`), "req_9", HELP);
      assert.ok(v.is(ErrorEnvelopeSchema, body), code);
      assert.equal(body.error.request_id, "req_9");
      assert.equal(body.error.help_url, code === "insufficient_credits" ? HELP.billing : undefined);
    }
  });

  it("sends a key-limit 402 to that key's page, and a balance 402 to billing", () => {
    const limit = { credits: 5, per: "day" } as const;
    const keyLimit = insufficientCredits(3, { ok: false, reason: "key_limit", remaining: 1, limit }, "key_abc");
    const body = errorEnvelope(keyLimit, "r", HELP).error;
    assert.equal(body.help_url, "https://example.test/dashboard/keys/key_abc");
    assert.match(body.message, /this key's page in the dashboard \(help_url\)/);
    assert.deepEqual(body.details, { reason: "key_limit", required: 3, remaining: 1, limit });
    const balance = insufficientCredits(3, { ok: false, reason: "balance", remaining: 1 }, "key_abc");
    assert.equal(errorEnvelope(balance, "r", HELP).error.help_url, "https://example.test/billing");
  });

  it("carries the details that name the broken rules", () => {
    const error = new ApiError("invalid_request", "bad", { details: [{ parameter: "limit", message: "too big" }] });
    assert.deepEqual(errorEnvelope(error, "r", HELP).error.details, [{ parameter: "limit", message: "too big" }]);
  });

  it("writes the same bytes for data given as JSON text as for the same data as values", () => {
    const data = [{ id: "1" }, { id: "22", text: 'caf\u00e9 "quoted" \u2028' }];
    const credits = { charged: 2, remaining: 98 };
    for (const token of [undefined, "tok_abc"]) {
      const expected = JSON.stringify(successEnvelope(data, "req_1", credits, token));
      assert.equal(successEnvelopeText(new JsonText(JSON.stringify(data)), "req_1", credits, token), expected);
      assert.equal(successEnvelopeText(data, "req_1", credits, token), expected);
      // Anything else that serializes the envelope, or needs the values, gets the same data back.
      assert.equal(
        JSON.stringify(successEnvelope(new JsonText(JSON.stringify(data)), "req_1", credits, token)),
        expected,
      );
    }
    assert.deepEqual(plainData(new JsonText(JSON.stringify(data))), data);
    assert.equal(plainData(data), data);
  });
});
