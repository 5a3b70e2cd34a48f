// CSRF protection for every dashboard form: the session's token travels in a hidden field and must
// come back unchanged. A cross-site page can make the browser post, but cannot read the token.
import { timingSafeEqual } from "node:crypto";

export const CSRF_FIELD = "csrf_token";

export function csrfTokenMatches(expected: string, submitted: unknown): boolean {
  if (typeof submitted !== "string") return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(submitted);
  return a.length === b.length && timingSafeEqual(a, b);
}
