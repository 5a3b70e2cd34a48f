// Signing in through OpenID Connect and out: the start, the provider's callback, the sign-out form (which
// ends the provider's session too where it offers an end-session endpoint), and the signed-out page.
import { rateHeaders, requestSearch, requestTarget } from "@social/core";
import { Elysia } from "elysia";
import type { HttpContext } from "../http/context.ts";
import { readCookie } from "./cookies.ts";
import { htmlResponse } from "./html.ts";
import { SignInError } from "./oidc.ts";
import { endingSessionPage, errorPage, signedOutPage } from "./pages.ts";
import { returnPath } from "./return-path.ts";
import { SESSION_LIFETIME_MS, SIGN_IN_LIFETIME_MS } from "./sessions.ts";
import { CALLBACK_PATH, type DashboardSite, redirect, SIGNED_OUT_PATH } from "./site.ts";

/** Set-Cookie for each of `cookies`, as the headers of a page. */
function clearing(cookies: readonly string[]): Headers {
  const headers = new Headers();
  for (const value of cookies) headers.append("set-cookie", value);
  return headers;
}

/** A cookie value this server wrote URI-encoded; anything it cannot decode is no value. */
function decodedCookie(value: string | undefined): string {
  try {
    return decodeURIComponent(value ?? "");
  } catch {
    return "";
  }
}

/** Sign-ins are rate-limited per client address as the API limits callers without a key. */
export function signInRoutes(context: HttpContext, site: DashboardSite) {
  const { names, oidc, sessions, accounts } = site;
  const { publicUrl } = site.options;
  return new Elysia({ name: "dashboard-sign-in" })
    .use(context)
    .get("/dashboard/sign-in", async ({ request, anonymousRate }) => {
      if (!oidc) return redirect("/dashboard");
      // Each sign-in started stores a row until it expires: a flood must not be able to fill the table.
      const rate = await anonymousRate();
      if (!rate.allowed) {
        return htmlResponse(
          errorPage(
            "Too many sign-ins",
            `Too many sign-ins from your address: try again in ${rate.retryAfter} seconds.`,
          ),
          429,
          { "retry-after": String(rate.retryAfter), ...rateHeaders(rate) },
        );
      }
      try {
        const { url, checks } = await oidc.start();
        const token = await sessions.saveSignIn(checks);
        const back = returnPath(requestTarget(request.url).query.get("return"));
        return redirect(url.href, [
          site.cookie(names.signIn, token, SIGN_IN_LIFETIME_MS / 1000),
          site.cookie(names.returnTo, encodeURIComponent(back), SIGN_IN_LIFETIME_MS / 1000),
        ]);
      } catch (error) {
        console.error(
          JSON.stringify({
            at: new Date().toISOString(),
            level: "error",
            kind: "oidc_discovery",
            error: String(error),
          }),
        );
        return htmlResponse(
          errorPage("Sign-in unavailable", "The identity provider cannot be reached right now: try again in a minute."),
          503,
        );
      }
    })
    .get(CALLBACK_PATH, async ({ request }) => {
      // Whatever happens, the sign-in is over, and nothing of the browser's last session carries into this one.
      const cleared = [
        site.cookie(names.signIn, "", 0),
        site.cookie(names.returnTo, "", 0),
        site.cookie(names.flash, "", 0),
      ];
      const checks = await sessions.takeSignIn(readCookie(request, names.signIn));
      if (!oidc || !checks) {
        return htmlResponse(
          errorPage("Sign-in expired", "This sign-in has expired or was already used: start again from the dashboard."),
          400,
          clearing(cleared),
        );
      }
      try {
        // The public address, not the socket's: behind a proxy it is what the provider redirected to.
        const identity = await oidc.finish(
          new URL(`${publicUrl}${CALLBACK_PATH}${requestSearch(request.url)}`),
          checks,
        );
        const account = await accounts.accountForIdentity(identity.issuer, identity.subject, identity.name);
        // A fresh token on every sign-in: a session id planted before sign-in never becomes a signed-in one.
        await sessions.destroy(readCookie(request, names.session));
        const token = await sessions.create(account.id);
        const back = returnPath(decodedCookie(readCookie(request, names.returnTo)));
        return redirect(back, [...cleared, site.cookie(names.session, token, SESSION_LIFETIME_MS / 1000)]);
      } catch (error) {
        if (!(error instanceof SignInError)) throw error;
        return htmlResponse(
          errorPage(error.providerRefused ? "Sign-in refused" : "Sign-in failed", error.message),
          400,
          clearing(cleared),
        );
      }
    })
    .post("/dashboard/sign-out", async ({ request, body }) => {
      const who = await site.formPoster(request, body);
      if (who instanceof Response) return who;
      await sessions.destroy(readCookie(request, names.session));
      // Ended at the provider too where it can be, or the next page that needs a sign-in would be signed
      // straight back in by the provider's own session. Either way it lands on a page that stays signed out.
      const signedOut = `${publicUrl}${SIGNED_OUT_PATH}`;
      const endSession = await oidc?.endSessionUrl(signedOut);
      // A one-time message still unread (a new key) goes with the session: the next person gets nothing of it.
      const cleared = [site.cookie(names.session, "", 0), site.cookie(names.flash, "", 0)];
      if (!endSession) return redirect(SIGNED_OUT_PATH, cleared);
      // Not a redirect: the form's CSP (form-action 'self') would stop one to the provider's origin.
      return htmlResponse(endingSessionPage(endSession.href), 200, clearing(cleared));
    })
    .get(SIGNED_OUT_PATH, async ({ request }) => {
      const who = await site.signedIn(request);
      return who ? redirect("/dashboard") : htmlResponse(signedOutPage());
    });
}
