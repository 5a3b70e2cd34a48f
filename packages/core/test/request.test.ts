import assert from "node:assert/strict";
import { test } from "node:test";
import { newRequestId } from "../src/request.ts";

test("request ids are UUIDv7: version 7, RFC variant, the time in the first 48 bits", () => {
  const at = Date.UTC(2026, 10, 22, 4, 30);
  const id = newRequestId(at);
  assert.match(id, /^req_[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
  assert.equal(Number.parseInt(id.slice(4, 16), 16), at);
});

test("request ids sort by time and never repeat", () => {
  const ids = Array.from({ length: 2000 }, (_, index) => newRequestId(1_700_000_000_000 + Math.floor(index / 10)));
  assert.equal(new Set(ids).size, ids.length);
  const byTime = ids.map((id) => id.slice(4, 16));
  assert.deepEqual(byTime, [...byTime].sort());
});
