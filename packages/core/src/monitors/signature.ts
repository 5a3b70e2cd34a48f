// How a webhook delivery proves it is ours: `Social-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>`
// over `${t}.${body}` with the monitor's secret. The time is signed with the body, so a receiver that
// refuses old signatures also refuses a captured delivery replayed later. WebCrypto only: the core runs
// on any runtime, and a receiver written in JavaScript can use the same two functions (docs/monitors.md).

export const SIGNATURE_HEADER = "Social-Signature";
export const DELIVERY_HEADER = "Social-Delivery";
/** How far a signature's time may be from the receiver's clock before verifyWebhookSignature refuses it. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

const encoder = new TextEncoder();

function hmacKey(secret: string, usage: "sign" | "verify"): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [usage]);
}

function hex(bytes: ArrayBuffer): string {
  return Array.from(new Uint8Array(bytes), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The Social-Signature header's value for `body` signed at `unixSeconds`. */
export async function signWebhook(secret: string, body: string, unixSeconds: number): Promise<string> {
  const t = Math.floor(unixSeconds);
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(secret, "sign"), encoder.encode(`${t}.${body}`));
  return `t=${t},v1=${hex(mac)}`;
}

/** The signature's time and its v1 digests (several while a secret is being rotated), or undefined. */
function parseSignature(header: string): { t: number; digests: Uint8Array<ArrayBuffer>[] } | undefined {
  let t: number | undefined;
  const digests: Uint8Array<ArrayBuffer>[] = [];
  for (const part of header.split(",")) {
    const [name, value = ""] = part.trim().split("=", 2);
    if (name === "t" && /^\d{1,12}$/.test(value)) t = Number(value);
    if (name === "v1" && /^[0-9a-f]{64}$/.test(value)) {
      digests.push(Uint8Array.from(value.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16)));
    }
  }
  return t === undefined || digests.length === 0 ? undefined : { t, digests };
}

/**
 * Whether `header` (the Social-Signature value) signs `body` (the raw request body, as received) with
 * `secret`, at a time within `toleranceSeconds` of `nowMs`. The digest is compared by WebCrypto's verify,
 * in constant time.
 */
export async function verifyWebhookSignature(
  secret: string,
  header: string | null | undefined,
  body: string,
  options: { nowMs?: number; toleranceSeconds?: number } = {},
): Promise<boolean> {
  const parsed = header ? parseSignature(header) : undefined;
  if (!parsed) return false;
  const now = (options.nowMs ?? Date.now()) / 1000;
  if (Math.abs(now - parsed.t) > (options.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS)) return false;
  const key = await hmacKey(secret, "verify");
  const signed = encoder.encode(`${parsed.t}.${body}`);
  for (const digest of parsed.digests) {
    if (await crypto.subtle.verify("HMAC", key, digest, signed)) return true;
  }
  return false;
}
