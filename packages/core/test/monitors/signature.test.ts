// A webhook's signature: what a receiver checks before it trusts a delivery.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { describe, it } from "node:test";
import { signWebhook, verifyWebhookSignature } from "../../src/monitors/signature.ts";

const SECRET = "whsec_0123456789abcdefABCDEF0123456789";
const BODY = '{"monitor_id":"mon_0123456789abcdef","tweets":[]}';
const AT = 1_800_000_000;

describe("webhook signatures", () => {
  it("are HMAC-SHA256 over `t.body` in hex, as any language computes it", async () => {
    const expected = createHmac("sha256", SECRET).update(`${AT}.${BODY}`).digest("hex");
    assert.equal(await signWebhook(SECRET, BODY, AT), `t=${AT},v1=${expected}`);
  });

  it("verify with the secret, the body as sent and a time near the receiver's clock", async () => {
    const header = await signWebhook(SECRET, BODY, AT);
    assert.equal(await verifyWebhookSignature(SECRET, header, BODY, { nowMs: AT * 1000 + 60_000 }), true);
  });

  it("refuse another secret, a changed body, an old or future time, and a malformed header", async () => {
    const header = await signWebhook(SECRET, BODY, AT);
    const now = { nowMs: AT * 1000 };
    assert.equal(await verifyWebhookSignature(`${SECRET}x`, header, BODY, now), false);
    assert.equal(await verifyWebhookSignature(SECRET, header, `${BODY} `, now), false);
    assert.equal(await verifyWebhookSignature(SECRET, header, BODY, { nowMs: (AT + 301) * 1000 }), false);
    assert.equal(await verifyWebhookSignature(SECRET, header, BODY, { nowMs: (AT - 301) * 1000 }), false);
    // The time is signed: moving it forward to pass the window breaks the digest.
    const moved = header.replace(`t=${AT}`, `t=${AT + 1000}`);
    assert.equal(await verifyWebhookSignature(SECRET, moved, BODY, { nowMs: (AT + 1000) * 1000 }), false);
    for (const bad of [null, "", "t=1", `v1=${"0".repeat(64)}`, `t=${AT},v1=zz`]) {
      assert.equal(await verifyWebhookSignature(SECRET, bad, BODY, now), false, String(bad));
    }
  });

  it("accept any one of several v1 digests (a secret being rotated)", async () => {
    const header = await signWebhook(SECRET, BODY, AT);
    const both = `t=${AT},v1=${"0".repeat(64)},${header.split(",")[1]}`;
    assert.equal(await verifyWebhookSignature(SECRET, both, BODY, { nowMs: AT * 1000 }), true);
  });
});
