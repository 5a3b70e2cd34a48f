// Where sign-in sends a person back to: only a path of this site, never another origin.

/** A path of this site and its query, in the characters a URL carries unescaped: no //host, no backslash. */
const SITE_PATH = /^\/(?!\/)[\w\-.~!$&'()*+,;=:@/%?]*$/;

/**
 * A path of this site to come back to after sign-in; anything else (another origin, a protocol-relative
 * //host, sign-in itself) goes to the dashboard.
 */
export function returnPath(value: string | null | undefined): string {
  const safe =
    value &&
    value.length <= 512 &&
    SITE_PATH.test(value) &&
    !value.startsWith("/dashboard/sign-in") &&
    !value.startsWith("/dashboard/callback");
  return safe ? value : "/dashboard";
}
