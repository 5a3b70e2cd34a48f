// node:crypto's HMAC-SHA-256 for pagination tokens: synchronous and native, where WebCrypto's (core's
// default) hands each MAC to another thread and back, a cost a page with a next_token pays twice (one
// MAC to check the token it came with, one to sign the next); docs/benchmark-log.md has the figure.
import { createHmac, createSecretKey } from "node:crypto";
import type { HmacFactory } from "@social/core";

export const nativeHmac: HmacFactory = async (secret) => {
  // Made once: each MAC then starts from the key object instead of copying the secret in again.
  const key = createSecretKey(secret);
  return (data) => createHmac("sha256", key).update(data).digest();
};
