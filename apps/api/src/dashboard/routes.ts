// The dashboard's HTTP surface: sign-in through OpenID Connect, the account pages and their forms.
// Every form needs the session's CSRF token and answers with a redirect (303), so a reload never
// repeats it; what it has to say rides in a sealed one-time cookie (flash.ts). Every page carries the
// security headers of html.ts, and every signed-in page the balance alert.

import { DAY_MS } from "@social/composition";
import {
  type Accounts,
  LedgerError,
  lowBalanceThreshold,
  MAX_ACTIVE_KEYS_PER_ACCOUNT,
  parseKeyOptions,
  rateHeaders,
  requestPath,
  requestSearch,
  requestTarget,
  type Sessions,
} from "@social/core";
import { Elysia } from "elysia";
import type { HttpContext } from "../http/context.ts";
import { type BillingSettings, billingPage } from "./billing-page.ts";
import { cookie, cookieNames, readCookie } from "./cookies.ts";
import { CSRF_FIELD, csrfTokenMatches } from "./csrf.ts";
import { FLASH_LIFETIME_SECONDS, type Flash, FlashSeal } from "./flash.ts";
import { type BalanceAlert, htmlResponse, SECURITY_HEADERS, type Viewer } from "./html.ts";
import { OidcClient, type OidcSettings, SignInError } from "./oidc.ts";
import {
  checkKeyName,
  dashboardPage,
  errorPage,
  type FormRefusal,
  notFoundPage,
  revokePage,
  signedOutPage,
  signInHref,
} from "./pages.ts";
import { logFilters, logQuery, requestsOffPage, requestsPage } from "./requests-page.ts";
import { SESSION_LIFETIME_MS, SessionStore, SIGN_IN_LIFETIME_MS } from "./sessions.ts";
import { STYLESHEET } from "./style.ts";
import { USAGE_DAYS, usagePage } from "./usage-page.ts";

export interface DashboardOptions {
  accounts: Accounts;
  sessions: Sessions;
  /** The address people reach the server at: the OIDC redirect URI and the cookies' Secure flag follow it. */
  publicUrl: string;
  /** How many days the request log covers (REQUEST_LOG_DAYS); 0: there is no log to show. */
  requestLogDays: number;
  /** Prices and where to buy credits (BILLING_URL, BILLING_CONTACT, BILLING_PLANS). */
  billing: BillingSettings;
  /** Keys the digests under which sessions are stored, and the seal of one-time messages. */
  sessionSecret: string;
  /** Absent: the dashboard explains how to configure sign-in, and the CLI remains the way to make keys. */
  oidc?: OidcSettings;
}

/** Grants the billing page lists, newest first. */
const GRANTS_SHOWN = 50;
/** The 402s a banner counts: past it, it says "1,000 or more". */
const REFUSALS_COUNTED = 1000;
const TOO_MANY_KEYS = `You already have ${MAX_ACTIVE_KEYS_PER_ACCOUNT} active keys, the most an account can hold: revoke one you no longer use, then create the new one.`;

interface SignedIn {
  viewer: Viewer;
  accountId: string;
  /** The session's cookie token: what a one-time message is bound to. */
  token: string;
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

/** The threshold field: empty for the default, else whole credits. */
function warningField(value: string): { credits: number | null } | { error: string } {
  const text = value.trim();
  if (text === "") return { credits: null };
  const credits = Number(text);
  if (!/^\d{1,15}$/.test(text) || !Number.isSafeInteger(credits)) {
    return { error: "The warning is a whole number of credits, or empty for the default." };
  }
  return { credits };
}

/** The pages; sign-ins are rate-limited per client address as the API limits callers without a key. */
export function dashboardRoutes(context: HttpContext, options: DashboardOptions | undefined) {
  const routes = new Elysia({ name: "dashboard" }).use(context);
  if (!options) return routes;
  const { accounts, publicUrl } = options;
  const secure = publicUrl.startsWith("https:");
  const names = cookieNames(secure);
  const sessions = new SessionStore(options.sessions, options.sessionSecret);
  const flashSeal = new FlashSeal(options.sessionSecret);
  const callbackPath = "/dashboard/callback";
  const oidc = options.oidc ? new OidcClient(options.oidc, `${publicUrl}${callbackPath}`) : undefined;

  /**
   * Where a balance stands: below the warning, and how many requests ran out of credits today (known
   * only while the request log is kept).
   */
  const alertOf = async (accountId: string, balance: number, setting: number | null): Promise<BalanceAlert> => {
    const [lastTopUp, refused] = await Promise.all([
      accounts.lastTopUp(accountId),
      options.requestLogDays > 0
        ? accounts.countRefused(accountId, 402, Date.now() - DAY_MS, REFUSALS_COUNTED)
        : Promise.resolve(0),
    ]);
    return { balance, threshold: lowBalanceThreshold(setting, lastTopUp), refused, refusedCap: REFUSALS_COUNTED };
  };

  const signedIn = async (request: Request): Promise<SignedIn | undefined> => {
    const token = readCookie(request, names.session);
    const session = await sessions.find(token);
    const account = session && (await accounts.account(session.accountId));
    if (!session || !account || token === undefined) return undefined;
    const alert = await alertOf(account.id, account.balance, account.lowBalanceWarning);
    return { viewer: { name: account.name, csrfToken: session.csrfToken, alert }, accountId: account.id, token };
  };

  /** A page for the signed-in only: a visitor is sent to sign in, and back here after. */
  const signInFirst = (request: Request): Response => {
    if (!oidc) return redirect("/dashboard");
    return redirect(signInHref(returnPath(`${requestPath(request.url)}${requestSearch(request.url)}`)));
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

  /** Back to the dashboard, saying what the form did, to this session only. */
  const done = async (who: SignedIn, flash: Flash) =>
    redirect("/dashboard", [
      cookie(names.flash, await flashSeal.seal(flash, who.token), FLASH_LIFETIME_SECONDS, secure),
    ]);

  const dashboard = async (request: Request, who: SignedIn, refused?: FormRefusal, status = 200) => {
    const account = await accounts.account(who.accountId);
    if (!account) return htmlResponse(errorPage("No account", "This account no longer exists."), 404);
    const sealed = readCookie(request, names.flash);
    const [keys, lastTopUp, flash] = await Promise.all([
      accounts.listKeys(who.accountId),
      accounts.lastTopUp(who.accountId),
      flashSeal.open(sealed, who.token),
    ]);
    const page = dashboardPage({
      viewer: who.viewer,
      account,
      keys,
      defaultWarning: lowBalanceThreshold(null, lastTopUp),
      ...(flash?.newKey ? { newKey: flash.newKey } : {}),
      ...(flash?.notice ? { notice: flash.notice } : {}),
      ...(refused ? { refused } : {}),
    });
    // Shown once: the cookie goes with this page.
    return htmlResponse(page, status, sealed === undefined ? {} : { "set-cookie": cookie(names.flash, "", 0, secure) });
  };

  /** One of the account's own keys, still active, or the page that says it is not. */
  const activeKeyOf = async (who: SignedIn, keyId: string) => {
    const key = (await accounts.listKeys(who.accountId)).find((each) => each.id === keyId);
    if (key && key.revokedAt === null) return key;
    const message = key ? "That key is revoked already." : "That key is not one of yours.";
    return htmlResponse(errorPage("No such key", message, who.viewer), 404);
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
      return dashboard(request, who);
    })
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
          cookie(names.signIn, token, SIGN_IN_LIFETIME_MS / 1000, secure),
          cookie(names.returnTo, encodeURIComponent(back), SIGN_IN_LIFETIME_MS / 1000, secure),
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
    .get(callbackPath, async ({ request }) => {
      // Whatever happens, the sign-in is over, and nothing of the browser's last session carries into this one.
      const cleared = [
        cookie(names.signIn, "", 0, secure),
        cookie(names.returnTo, "", 0, secure),
        cookie(names.flash, "", 0, secure),
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
        const identity = await oidc.finish(new URL(`${publicUrl}${callbackPath}${requestSearch(request.url)}`), checks);
        const account = await accounts.accountForIdentity(identity.issuer, identity.subject, identity.name);
        // A fresh token on every sign-in: a session id planted before sign-in never becomes a signed-in one.
        await sessions.destroy(readCookie(request, names.session));
        const token = await sessions.create(account.id);
        const back = returnPath(decodedCookie(readCookie(request, names.returnTo)));
        return redirect(back, [...cleared, cookie(names.session, token, SESSION_LIFETIME_MS / 1000, secure)]);
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
      const who = await formPoster(request, body);
      if (who instanceof Response) return who;
      await sessions.destroy(readCookie(request, names.session));
      // A one-time message still unread (a new key) goes with the session: the next person gets nothing of it.
      return redirect("/dashboard", [cookie(names.session, "", 0, secure), cookie(names.flash, "", 0, secure)]);
    })
    .post("/dashboard/keys", async ({ request, body }) => {
      const who = await formPoster(request, body);
      if (who instanceof Response) return who;
      const checked = checkKeyName(field(body, "name"));
      if ("error" in checked) return dashboard(request, who, { form: "key", message: checked.error }, 400);
      const limits = parseKeyOptions(
        { limit: textField(body, "limit"), per: textField(body, "per"), expires: textField(body, "expires") },
        Date.now(),
      );
      if ("error" in limits) return dashboard(request, who, { form: "key", message: limits.error }, 400);
      try {
        const { key } = await accounts.createKey(who.accountId, checked.name, limits.options);
        return done(who, { newKey: { key, name: checked.name } });
      } catch (error) {
        if (!(error instanceof LedgerError && error.code === "too_many_keys")) throw error;
        return dashboard(request, who, { form: "key", message: TOO_MANY_KEYS }, 409);
      }
    })
    .get("/dashboard/keys/:keyId/revoke", async ({ request, params }) => {
      const who = await signedIn(request);
      if (!who) return signInFirst(request);
      const key = await activeKeyOf(who, params.keyId);
      return key instanceof Response ? key : htmlResponse(revokePage(who.viewer, key));
    })
    .post("/dashboard/keys/:keyId/revoke", async ({ request, body, params }) => {
      const who = await formPoster(request, body);
      if (who instanceof Response) return who;
      const key = await activeKeyOf(who, params.keyId);
      if (key instanceof Response) return key;
      await accounts.revokeKey(key.id);
      return done(who, {
        notice: `The key “${key.name}” (${key.prefix}…) is revoked: requests made with it are refused from now on.`,
      });
    })
    .post("/dashboard/warning", async ({ request, body }) => {
      const who = await formPoster(request, body);
      if (who instanceof Response) return who;
      const typed = textField(body, "credits");
      const warning = warningField(typed);
      if ("error" in warning) {
        return dashboard(request, who, { form: "warning", message: warning.error, typed }, 400);
      }
      await accounts.setLowBalanceWarning(who.accountId, warning.credits);
      return done(who, {
        notice:
          warning.credits === null
            ? "You will be warned below the default: a tenth of the credits last added."
            : `You will be warned when the balance is below ${warning.credits.toLocaleString("en-US")} credits.`,
      });
    })
    .get("/dashboard/usage", async ({ request }) => {
      const who = await signedIn(request);
      if (!who) return signInFirst(request);
      const now = Date.now();
      const range = { from: (Math.floor(now / DAY_MS) - (USAGE_DAYS - 1)) * DAY_MS, to: now + 1 };
      const [days, byEndpoint, byKey, keys] = await Promise.all([
        accounts.dailyUsage(who.accountId, USAGE_DAYS),
        accounts.usageSummary(who.accountId, { ...range, groupBy: "endpoint" }),
        accounts.usageSummary(who.accountId, { ...range, groupBy: "key" }),
        accounts.listKeys(who.accountId),
      ]);
      return htmlResponse(usagePage({ viewer: who.viewer, days, byEndpoint, byKey, keys }));
    })
    .get("/dashboard/requests", async ({ request }) => {
      const who = await signedIn(request);
      if (!who) return signInFirst(request);
      if (options.requestLogDays === 0) return htmlResponse(requestsOffPage(who.viewer));
      const keys = await accounts.listKeys(who.accountId);
      const filters = logFilters(requestTarget(request.url).query, keys);
      if ("error" in filters) return htmlResponse(errorPage("No such requests", filters.error, who.viewer), 400);
      const since = Date.now() - options.requestLogDays * DAY_MS;
      const page = await accounts.requestLog(who.accountId, logQuery(filters, since));
      return htmlResponse(requestsPage({ viewer: who.viewer, keys, filters, page, days: options.requestLogDays }));
    })
    .get("/billing", async ({ request }) => {
      const who = await signedIn(request);
      const account = who && (await accounts.account(who.accountId));
      if (!who || !account) {
        return htmlResponse(
          billingPage({ settings: options.billing, ...(oidc ? { signIn: signInHref("/billing") } : {}) }),
        );
      }
      const [grants, days] = await Promise.all([
        accounts.grants(account.id, GRANTS_SHOWN),
        accounts.dailyUsage(account.id, USAGE_DAYS),
      ]);
      return htmlResponse(
        billingPage({
          viewer: who.viewer,
          settings: options.billing,
          account: { id: account.id, balance: account.balance, grants, days },
        }),
      );
    })
    .all("/dashboard/*", async ({ request }) => {
      const who = await signedIn(request);
      return htmlResponse(notFoundPage(requestPath(request.url), who?.viewer), 404);
    });
}
