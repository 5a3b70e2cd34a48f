// The dashboard's cookies: the session, a sign-in in progress and where it returns to, and a form's
// sealed one-time message (flash.ts). On https they take the __Host- prefix, which browsers accept
// only with Secure, Path=/ and no Domain, so no sibling subdomain can plant or overwrite them.

export interface CookieNames {
  session: string;
  signIn: string;
  returnTo: string;
  flash: string;
}

export function cookieNames(secure: boolean): CookieNames {
  const prefix = secure ? "__Host-" : "";
  return {
    session: `${prefix}social_session`,
    signIn: `${prefix}social_sign_in`,
    returnTo: `${prefix}social_return`,
    flash: `${prefix}social_flash`,
  };
}

export function readCookie(request: Request, name: string): string | undefined {
  const header = request.headers.get("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const separator = part.indexOf("=");
    if (separator > 0 && part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim();
  }
  return undefined;
}

/** A Set-Cookie value; a `maxAgeSeconds` of 0 deletes the cookie. */
export function cookie(name: string, value: string, maxAgeSeconds: number, secure: boolean): string {
  const attributes = [`${name}=${value}`, "Path=/", `Max-Age=${maxAgeSeconds}`, "HttpOnly", "SameSite=Lax"];
  if (secure) attributes.push("Secure");
  return attributes.join("; ");
}
