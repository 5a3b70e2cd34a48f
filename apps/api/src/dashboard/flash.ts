// What a form's answer has to say on the page it redirects to (a new key or a webhook monitor's signing
// secret, shown once; "key revoked"), carried by a short-lived cookie sealed with AES-GCM under a key
// drawn from the session secret and bound to the session that posted the form (its cookie token is the
// cipher's additional data). So the form answers 303 and a reload never repeats it, the new key is never
// stored on the server, any worker can open it, nobody without the secret can read or forge one, and no
// other session (the next person to sign in on the same browser) can open it. The page that shows it
// deletes it.
import * as v from "valibot";

export const FLASH_LIFETIME_SECONDS = 300;

const Flash = v.object({
  newKey: v.optional(v.object({ key: v.string(), name: v.string() })),
  notice: v.optional(v.string()),
  /** A webhook monitor's signing secret, for that monitor's page. */
  newSecret: v.optional(v.object({ monitorId: v.string(), secret: v.string() })),
});
export type Flash = v.InferOutput<typeof Flash>;

const encoder = new TextEncoder();

function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64url");
}

export class FlashSeal {
  readonly #key: Promise<CryptoKey>;

  constructor(sessionSecret: string) {
    // A key of its own, so that nothing sealed here could ever pass for a session digest or the reverse.
    this.#key = crypto.subtle
      .digest("SHA-256", encoder.encode(`dashboard flash\u0000${sessionSecret}`))
      .then((raw) => crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]));
  }

  /** `flash` for `session` (its cookie token) as a cookie value: a fresh nonce, then the ciphertext, base64url. */
  async seal(flash: Flash, session: string): Promise<string> {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const sealed = await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: encoder.encode(session) },
      await this.#key,
      encoder.encode(JSON.stringify(flash)),
    );
    return `${base64url(iv)}.${base64url(new Uint8Array(sealed))}`;
  }

  /** The flash a cookie value holds for `session`; undefined for one that is absent, altered, or another's. */
  async open(value: string | undefined, session: string): Promise<Flash | undefined> {
    const [iv, sealed, ...rest] = value?.split(".") ?? [];
    if (!iv || !sealed || rest.length > 0) return undefined;
    try {
      const plain = await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: Buffer.from(iv, "base64url"), additionalData: encoder.encode(session) },
        await this.#key,
        Buffer.from(sealed, "base64url"),
      );
      const parsed = v.safeParse(Flash, JSON.parse(new TextDecoder().decode(plain)));
      return parsed.success ? parsed.output : undefined;
    } catch {
      return undefined;
    }
  }
}
