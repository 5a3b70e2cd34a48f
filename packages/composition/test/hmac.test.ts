// The native HMAC the serving processes sign pagination tokens with makes the same tokens as core's
// WebCrypto default: a token from either pages on the other, and a changed one is refused by both.
import { expect, test } from "bun:test";
import { createTokenCodec, webCryptoHmac } from "@social/core";
import { nativeHmac } from "../src/hmac.ts";

const SECRET = "a-pagination-secret-of-32-characters-or-more";

test("tokens signed natively and with WebCrypto are the same, and verify on each other", async () => {
  const native = await createTokenCodec(SECRET, nativeHmac);
  const web = await createTokenCodec(SECRET, webCryptoHmac);
  const cursor = ["1700000000000", "1834567890123456789"];
  const token = await native.sign("/v1/search/recent", "query=coffee", cursor);
  expect(await web.sign("/v1/search/recent", "query=coffee", cursor)).toBe(token);
  expect(await web.verify(token, "/v1/search/recent", "query=coffee")).toEqual(cursor);
  expect(await native.verify(token, "/v1/search/recent", "query=coffee")).toEqual(cursor);

  const [payload, digest, mac] = token.split(".") as [string, string, string];
  const changed = `${payload}.${digest}.${mac.startsWith("A") ? "B" : "A"}${mac.slice(1)}`;
  for (const codec of [native, web]) {
    expect(codec.verify(changed, "/v1/search/recent", "query=coffee")).rejects.toMatchObject({
      code: "invalid_request",
    });
    expect(codec.verify(token, "/v1/search/recent", "query=tea")).rejects.toMatchObject({ code: "invalid_request" });
  }
});
