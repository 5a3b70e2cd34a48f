// The dashboard's HTTP surface: sign-in through OpenID Connect, the account pages and their forms.
// Every form needs the session's CSRF token; every page carries the security headers of html.ts.
import {
  type Accounts,
  LedgerError,
  MAX_ACTIVE_KEYS_PER_ACCOUNT,
  parseKeyOptions,
  rateHeaders,
  type Sessions,
} from "@social/core";
import { Elysia } from "elysia";
import type { HttpContext } from "../http/context.ts";
import { cookie, cookieNames, readCookie } from "./cookies.ts";
import { CSRF_FIELD, csrfTokenMatches } from "./csrf.ts";
import { htmlResponse, SECURITY_HEADERS, type Viewer } from "./html.ts";
import { OidcClient, type OidcSettings, SignInError } from "./oidc.ts";
import { billingPage, checkKeyName, dashboardPage, errorPage, signedOutPage, usagePage } from "./pages.ts";
import { SESSION_LIFETIME_MS, SessionStore, SIGN_IN_LIFETIME_MS } from "./sessions.ts";
import { STYLESHEET } from "./style.ts";

export interface DashboardOptions {
  accounts: Accounts;
  sessions: Sessions;
  /** The address people reach the server at: the OIDC redirect URI and the cookies' Secure flag follow it. */
  publicUrl: string;
  /** Keys the digests under which sessions are stored. */
  sessionSecret: string;
  /** Absent: the dashboard explains how to configure sign-in, and the CLI remains the way to make keys. */
  oidc?: OidcSettings;
}

const USAGE_DAYS = 30;
const LATEST_REQUESTS = 20;
const TOO_MANY_KEYS = `You already have ${MAX_ACTIVE_KEYS_PER_ACCOUNT} active keys, the most an account can hold: revoke one you no longer use, then create the new one.`;

interface SignedIn {
  viewer: Viewer;
  accountId: string;
}

function field(body: unknown, name: string): unknown {
  return typeof body === "object" && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}

/** A form field as text: absent and non-text values (a field sent twice) are empty. */
function textField(body: unknown, name: string): string {
  const value = field(body, name);
  return typeof value === "string" ? value : "";
}

function redirect(location: string, cookies: readonly string[] = []): Response {
  const headers = new Headers({ location, "cache-control": "no-store", ...SECURITY_HEADERS });
  for (const value of cookies) headers.append("set-cookie", value);
  return new Response(null, { status: 303, headers });
}

/** The pages; sign-ins are rate-limited per client address as the API limits callers without a key. */
export function dashboardRoutes(context: HttpContext, options: DashboardOptions | undefined) {
  const routes = new Elysia({ name: "dashboard" }).use(context);
  if (!options) return routes;
  const { accounts, publicUrl } = options;
  const secure = publicUrl.startsWith("https:");
  const names = cookieNames(secure);
  const sessions = new SessionStore(options.sessions, options.sessionSecret);
  const callbackPath = "/dashboard/callback";
  const oidc = options.oidc ? new OidcClient(options.oidc, `${publicUrl}${callbackPath}`) : undefined;

  const signedIn = async (request: Request): Promise<SignedIn | undefined> => {
    const session = await sessions.find(readCookie(request, names.session));
    const account = session && (await accounts.account(session.accountId));
    if (!session || !account) return undefined;
    return { viewer: { name: account.name, csrfToken: session.csrfToken }, accountId: account.id };
  };

  /** The signed-in person behind a form post, or the page that refuses it. */
  const formPoster = async (request: Request, body: unknown): Promise<SignedIn | Response> => {
    const who = await signedIn(request);
    if (!who) return htmlResponse(errorPage("Signed out", "Your session has ended: sign in again."), 403);
    if (!csrfTokenMatches(who.viewer.csrfToken, field(body, CSRF_FIELD))) {
      return htmlResponse(
        errorPage("Form expired", "This form is out of date: reload the page and try again.", who.viewer),
        403,
      );
    }
    return who;
  };

  const dashboard = async (
    who: SignedIn,
    extra: { newKey?: { key: string; name: string }; formError?: string } = {},
    status = 200,
  ) => {
    const account = await accounts.account(who.accountId);
    if (!account) return htmlResponse(errorPage("No account", "This account no longer exists."), 404);
    const keys = await accounts.listKeys(who.accountId);
    return htmlResponse(dashboardPage({ viewer: who.viewer, account, keys, ...extra }), status);
  };

  return routes
    .get(
      "/dashboard/style.css",
      () =>
        new Response(STYLESHEET, {
          headers: {
            "content-type": "text/css; charset=utf-8",
            "cache-control": "public, max-age=3600",
            "x-content-type-options": "nosniff",
          },
        }),
    )
    .get("/dashboard", async ({ request }) => {
      const who = await signedIn(request);
      if (!who) return htmlResponse(signedOutPage({ configured: oidc !== undefined, publicUrl }));
      return dashboard(who);
    })
    .get("/dashboard/sign-in", async ({ anonymousRate }) => {
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
        return redirect(url.href, [cookie(names.signIn, token, SIGN_IN_LIFETIME_MS / 1000, secure)]);
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
    .get(callbackPath, async ({ request }) => {
      const clearSignIn = cookie(names.signIn, "", 0, secure);
      const checks = await sessions.takeSignIn(readCookie(request, names.signIn));
      if (!oidc || !checks) {
        return htmlResponse(
          errorPage("Sign-in expired", "This sign-in has expired or was already used: start again from the dashboard."),
          400,
          { "set-cookie": clearSignIn },
        );
      }
      try {
        // The public address, not the socket's: behind a proxy it is what the provider redirected to.
        const identity = await oidc.finish(
          new URL(`${publicUrl}${callbackPath}${request.url.replace(/^[^?]*/, "")}`),
          checks,
        );
        const account = await accounts.accountForIdentity(identity.issuer, identity.subject, identity.name);
        // A fresh token on every sign-in: a session id planted before sign-in never becomes a signed-in one.
        await sessions.destroy(readCookie(request, names.session));
        const token = await sessions.create(account.id);
        return redirect("/dashboard", [clearSignIn, cookie(names.session, token, SESSION_LIFETIME_MS / 1000, secure)]);
      } catch (error) {
        if (!(error instanceof SignInError)) throw error;
        return htmlResponse(
          errorPage(error.providerRefused ? "Sign-in refused" : "Sign-in failed", error.message),
          400,
          {
            "set-cookie": clearSignIn,
          },
        );
      }
    })
    .post("/dashboard/sign-out", async ({ request, body }) => {
      const who = await formPoster(request, body);
      if (who instanceof Response) return who;
      await sessions.destroy(readCookie(request, names.session));
      return redirect("/dashboard", [cookie(names.session, "", 0, secure)]);
    })
    .post("/dashboard/keys", async ({ request, body }) => {
      const who = await formPoster(request, body);
      if (who instanceof Response) return who;
      const checked = checkKeyName(field(body, "name"));
      if ("error" in checked) return dashboard(who, { formError: checked.error }, 400);
      const limits = parseKeyOptions(
        { limit: textField(body, "limit"), per: textField(body, "per"), expires: textField(body, "expires") },
        Date.now(),
      );
      if ("error" in limits) return dashboard(who, { formError: limits.error }, 400);
      try {
        const { key } = await accounts.createKey(who.accountId, checked.name, limits.options);
        return dashboard(who, { newKey: { key, name: checked.name } }, 201);
      } catch (error) {
        if (!(error instanceof LedgerError && error.code === "too_many_keys")) throw error;
        return dashboard(who, { formError: TOO_MANY_KEYS }, 409);
      }
    })
    .post("/dashboard/keys/:keyId/revoke", async ({ request, body, params }) => {
      const who = await formPoster(request, body);
      if (who instanceof Response) return who;
      if (!(await accounts.listKeys(who.accountId)).some((key) => key.id === params.keyId)) {
        return htmlResponse(errorPage("No such key", "That key is not one of yours.", who.viewer), 404);
      }
      await accounts.revokeKey(params.keyId);
      return redirect("/dashboard");
    })
    .get("/dashboard/usage", async ({ request }) => {
      const who = await signedIn(request);
      if (!who) return redirect("/dashboard");
      const [perDay, latest] = await Promise.all([
        accounts.dailyUsage(who.accountId, USAGE_DAYS),
        accounts.recentRequests(who.accountId, LATEST_REQUESTS),
      ]);
      return htmlResponse(usagePage(who.viewer, perDay, latest));
    })
    .get("/billing", async ({ request }) => {
      const who = await signedIn(request);
      return htmlResponse(billingPage(who ? { viewer: who.viewer, accountId: who.accountId } : {}));
    });
}
