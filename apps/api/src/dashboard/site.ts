// What every dashboard route shares: its settings, who is signed in, the checks a form passes before it
// acts, and the answers it ends with. Every form needs the session's CSRF token and answers with a
// redirect (303), so a reload never repeats it; what it has to say rides in a sealed one-time cookie
// (flash.ts). Every page carries the security headers of html.ts, and every signed-in page the balance
// alert.
import { type BillingSettings, DAY_MS, type OidcSettings } from "@social/composition";
import {
  type Accounts,
  BALANCE_REFUSAL,
  lowBalanceThreshold,
  type Monitors,
  requestPath,
  requestSearch,
  type Sessions,
} from "@social/core";
import { type CookieNames, cookie, cookieNames, readCookie } from "./cookies.ts";
import { CSRF_FIELD, csrfTokenMatches } from "./csrf.ts";
import { FLASH_LIFETIME_SECONDS, type Flash, FlashSeal } from "./flash.ts";
import { type BalanceAlert, htmlResponse, SECURITY_HEADERS, type Viewer } from "./html.ts";
import { OidcClient } from "./oidc.ts";
import { dashboardPage, errorPage, type FormRefusal, signInHref } from "./pages.ts";
import { returnPath } from "./return-path.ts";
import { SessionStore } from "./sessions.ts";

export interface DashboardOptions {
  accounts: Accounts;
  sessions: Sessions;
  /** The account's monitors: listed, created, changed, paused or resumed, and deleted. */
  monitors: Monitors;
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

/** The 402s a banner counts: past it, it says "1,000 or more". */
const REFUSALS_COUNTED = 1000;

export const CALLBACK_PATH = "/dashboard/callback";
/** Where a sign-out lands, back from the provider: registered there as the post-logout redirect URI. */
export const SIGNED_OUT_PATH = "/dashboard/signed-out";

export interface SignedIn {
  viewer: Viewer;
  accountId: string;
  /** The session's cookie token: what a one-time message is bound to. */
  token: string;
}

export function field(body: unknown, name: string): unknown {
  return typeof body === "object" && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}

/** A form field as text: absent and non-text values (a field sent twice) are empty. */
export function textField(body: unknown, name: string): string {
  const value = field(body, name);
  return typeof value === "string" ? value : "";
}

export function redirect(location: string, cookies: readonly string[] = []): Response {
  const headers = new Headers({ location, "cache-control": "no-store", ...SECURITY_HEADERS });
  for (const value of cookies) headers.append("set-cookie", value);
  return new Response(null, { status: 303, headers });
}

export class DashboardSite {
  readonly options: DashboardOptions;
  readonly accounts: Accounts;
  /** Whether the site is reached over https: the cookies' Secure flag and prefixes follow it. */
  readonly secure: boolean;
  readonly names: CookieNames;
  readonly sessions: SessionStore;
  readonly flashSeal: FlashSeal;
  readonly oidc: OidcClient | undefined;

  constructor(options: DashboardOptions) {
    this.options = options;
    this.accounts = options.accounts;
    this.secure = options.publicUrl.startsWith("https:");
    this.names = cookieNames(this.secure);
    this.sessions = new SessionStore(options.sessions, options.sessionSecret);
    this.flashSeal = new FlashSeal(options.sessionSecret);
    this.oidc = options.oidc ? new OidcClient(options.oidc, `${options.publicUrl}${CALLBACK_PATH}`) : undefined;
  }

  /** A Set-Cookie of this site: `name`'s value for `maxAgeSeconds` (0 clears it). */
  cookie(name: string, value: string, maxAgeSeconds: number): string {
    return cookie(name, value, maxAgeSeconds, this.secure);
  }

  /**
   * Where a balance stands: below the warning or not and, while it is, how many requests the balance
   * refused since credits were last added (known only while the request log is kept; a key's own limit
   * is no lack of credits, and refusals before a top-up are answered by it).
   */
  async #alertOf(accountId: string, balance: number, setting: number | null): Promise<BalanceAlert> {
    const lastTopUp = await this.accounts.lastTopUp(accountId);
    const threshold = lowBalanceThreshold(setting, lastTopUp);
    const alert = { balance, threshold, refused: 0, refusedCap: REFUSALS_COUNTED };
    if (balance >= threshold || this.options.requestLogDays === 0) return alert;
    const since = Math.max(lastTopUp?.createdAt ?? 0, Date.now() - this.options.requestLogDays * DAY_MS);
    return { ...alert, refused: await this.accounts.countRefused(accountId, BALANCE_REFUSAL, since, REFUSALS_COUNTED) };
  }

  async signedIn(request: Request): Promise<SignedIn | undefined> {
    const token = readCookie(request, this.names.session);
    const session = await this.sessions.find(token);
    const account = session && (await this.accounts.account(session.accountId));
    if (!session || !account || token === undefined) return undefined;
    const alert = await this.#alertOf(account.id, account.balance, account.lowBalanceWarning);
    return { viewer: { name: account.name, csrfToken: session.csrfToken, alert }, accountId: account.id, token };
  }

  /** A page for the signed-in only: a visitor is sent to sign in, and back here after. */
  signInFirst(request: Request): Response {
    if (!this.oidc) return redirect("/dashboard");
    return redirect(signInHref(returnPath(`${requestPath(request.url)}${requestSearch(request.url)}`)));
  }

  /** The signed-in person behind a form post, or the page that refuses it. */
  async formPoster(request: Request, body: unknown): Promise<SignedIn | Response> {
    const who = await this.signedIn(request);
    if (!who) return htmlResponse(errorPage("Signed out", "Your session has ended: sign in again."), 403);
    if (!csrfTokenMatches(who.viewer.csrfToken, field(body, CSRF_FIELD))) {
      return htmlResponse(
        errorPage("Form expired", "This form is out of date: reload the page and try again.", who.viewer),
        403,
      );
    }
    return who;
  }

  /** Back to the dashboard (or the page `to`), saying what the form did, to this session only. */
  async done(who: SignedIn, flash: Flash, to = "/dashboard"): Promise<Response> {
    return redirect(to, [
      this.cookie(this.names.flash, await this.flashSeal.seal(flash, who.token), FLASH_LIFETIME_SECONDS),
    ]);
  }

  /** What the last form said, for the page it led to, and the headers that delete it: it is shown once. */
  async takeFlash(request: Request, who: SignedIn): Promise<{ flash?: Flash; headers: Record<string, string> }> {
    const sealed = readCookie(request, this.names.flash);
    if (sealed === undefined) return { headers: {} };
    const flash = await this.flashSeal.open(sealed, who.token);
    return { ...(flash ? { flash } : {}), headers: { "set-cookie": this.cookie(this.names.flash, "", 0) } };
  }

  /** The dashboard's own page: the keys and the warning, with the form `refused` shown refused. */
  async home(request: Request, who: SignedIn, refused?: FormRefusal, status = 200): Promise<Response> {
    const account = await this.accounts.account(who.accountId);
    if (!account) return htmlResponse(errorPage("No account", "This account no longer exists."), 404);
    const [keys, lastTopUp, { flash, headers }] = await Promise.all([
      this.accounts.listKeys(who.accountId),
      this.accounts.lastTopUp(who.accountId),
      this.takeFlash(request, who),
    ]);
    const page = dashboardPage({
      viewer: who.viewer,
      publicUrl: this.options.publicUrl,
      account,
      keys,
      defaultWarning: lowBalanceThreshold(null, lastTopUp),
      ...(flash?.newKey ? { newKey: flash.newKey } : {}),
      ...(flash?.notice ? { notice: flash.notice } : {}),
      ...(refused ? { refused } : {}),
    });
    return htmlResponse(page, status, headers);
  }
}
