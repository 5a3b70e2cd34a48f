// What a form's answer has to say on the page it redirects to (a new key, shown once; "key revoked"),
// carried by a short-lived cookie sealed with AES-GCM under a key drawn from the session secret. So the
// form answers 303 and a reload never repeats it, the secret key is never stored on the server, any
// worker can open it, and nobody without the secret can read or forge one. The page that shows it
// deletes it.
import * as v from "valibot";

export const FLASH_LIFETIME_SECONDS = 300;

const Flash = v.object({
  newKey: v.optional(v.object({ key: v.string(), name: v.string() })),
  notice: v.optional(v.string()),
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

  /** `flash` as a cookie value: a fresh nonce, then the ciphertext, both base64url. */
  async seal(flash: Flash): Promise<string> {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const sealed = await crypto.subtle.encrypt(
      { name: "AES-GCM", iv },
      await this.#key,
      encoder.encode(JSON.stringify(flash)),
    );
    return `${base64url(iv)}.${base64url(new Uint8Array(sealed))}`;
  }

  /** The flash a cookie value holds; undefined for one that is absent, altered or not ours. */
  async open(value: string | undefined): Promise<Flash | undefined> {
    const [iv, sealed, ...rest] = value?.split(".") ?? [];
    if (!iv || !sealed || rest.length > 0) return undefined;
    try {
      const plain = await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: Buffer.from(iv, "base64url") },
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
