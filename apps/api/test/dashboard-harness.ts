// The dashboard in-process (app.handle), with a real OpenID Provider on loopback answered with fetch:
// what the dashboard tests share to sign in, post forms and follow their redirects.
import type { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect } from "bun:test";
import { helpLinksOf, type MonitorSettingsOptions } from "@social/core";
import {
  openDatabase,
  SqliteAccounts,
  SqliteMonitors,
  SqliteRequestLog,
  SqliteSessions,
  sqliteServices,
} from "@social/store-sqlite";
import { type DashboardOptions, dashboardRoutes } from "../src/dashboard/routes.ts";
import { httpContext } from "../src/http/context.ts";
import { answerAtProvider, startTestProvider, type TestProvider } from "./oidc-provider.ts";

// Nothing listens here: the provider only compares the redirect URI, and the tests call the app directly.
export const PUBLIC_URL = "http://127.0.0.1:9";

/** The dashboard's ports on one database, which the tests also read directly. */
export function portsOn(db: Database) {
  return {
    accounts: new SqliteAccounts(db),
    sessions: new SqliteSessions(db),
    requestLog: new SqliteRequestLog(db),
    monitors: new SqliteMonitors(db),
  };
}

/** A dashboard's options for a test, and the API's monitor settings it is mounted with. */
export type TestDashboardOptions = Partial<DashboardOptions> & { monitorSettings?: MonitorSettingsOptions };

/** The dashboard as the app mounts it; in-process tests are not rate limited. */
export async function dashboardApp(provider: TestProvider, testOptions: TestDashboardOptions = {}) {
  const { monitorSettings = { allowPrivateWebhooks: false }, ...options } = testOptions;
  const db = openDatabase(":memory:");
  const services = await sqliteServices(db, { rateLimit: { ratePerSecond: 0, burst: 1 } });
  const context = httpContext({ services, helpLinks: helpLinksOf(PUBLIC_URL), log: () => {} });
  const ports = portsOn(db);
  const app = dashboardRoutes(
    context,
    {
      accounts: ports.accounts,
      sessions: ports.sessions,
      monitors: ports.monitors,
      publicUrl: PUBLIC_URL,
      requestLogDays: 30,
      billing: { plans: [] },
      sessionSecret: "test session secret",
      oidc: { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret },
      ...options,
    },
    monitorSettings,
  );
  const request = (path: string, init: RequestInit & { cookie?: string } = {}) => {
    const headers = new Headers(init.headers);
    if (init.cookie) headers.set("cookie", init.cookie);
    return app.handle(new Request(new URL(path, PUBLIC_URL), { ...init, headers }));
  };
  return {
    db,
    request,
    requestLog: ports.requestLog,
    accounts: ports.accounts,
    monitors: ports.monitors,
    ledger: services.ledger,
  };
}

export type Dashboard = Awaited<ReturnType<typeof dashboardApp>>;

/** `name=value` of the cookie a response sets, and its attributes. */
export function setCookie(response: Response, name: string): { pair: string; attributes: string } | undefined {
  const line = response.headers.getSetCookie().find((value) => value.startsWith(`${name}=`));
  if (!line) return undefined;
  const [pair = "", ...attributes] = line.split("; ");
  return { pair, attributes: attributes.join("; ") };
}

/** Starts a sign-in (at `path`, which may name where to return); the cookies it set, as a Cookie header. */
export async function startSignIn(dashboard: Dashboard, path = "/dashboard/sign-in") {
  const response = await dashboard.request(path);
  expect(response.status).toBe(303);
  const signInCookie = setCookie(response, "social_sign_in");
  if (!signInCookie) throw new Error("no sign-in cookie");
  const returnTo = setCookie(response, "social_return");
  const cookie = [signInCookie.pair, ...(returnTo ? [returnTo.pair] : [])].join("; ");
  return { authorizationUrl: response.headers.get("location") ?? "", cookie };
}

/** Signs `username` in; `path` starts the sign-in (and may say where it returns to). */
export async function signIn(dashboard: Dashboard, username = "ada", path?: string) {
  const started = await startSignIn(dashboard, path);
  const callback = await answerAtProvider(started.authorizationUrl, { username, decision: "allow" });
  const response = await dashboard.request(callback.pathname + callback.search, { cookie: started.cookie });
  const session = setCookie(response, "social_session");
  return { response, cookie: session?.pair ?? "", attributes: session?.attributes ?? "" };
}

/** The dashboard page a form's redirect leads to, with the one-time message it set. */
export async function shownAfter(dashboard: Dashboard, answer: Response, session: string): Promise<string> {
  expect(answer.headers.get("location")).toBe("/dashboard");
  const flash = setCookie(answer, "social_flash");
  const page = await dashboard.request("/dashboard", { cookie: `${session}; ${flash?.pair ?? ""}` });
  return page.text();
}

export function csrfTokenIn(page: string): string {
  const match = page.match(/name="csrf_token" value="([^"]+)"/);
  if (!match?.[1]) throw new Error("no CSRF token on the page");
  return match[1];
}

export function form(fields: Record<string, string>): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  };
}

/**
 * A provider for the test file's dashboards, started before its tests and stopped after them: fresh
 * dashboards on it, and signed-in customers of them.
 */
export function testDashboards() {
  let provider: TestProvider | undefined;
  beforeAll(async () => {
    provider = await startTestProvider(`${PUBLIC_URL}/dashboard/callback`);
  });
  afterAll(() => provider?.close());
  const started = () => {
    if (provider === undefined) throw new Error("the provider starts before the file's tests");
    return provider;
  };
  return {
    app: (options: TestDashboardOptions = {}) => dashboardApp(started(), options),
    customer: (options: TestDashboardOptions = {}) => signedInCustomer(started(), options),
  };
}

/** A signed-in customer of a fresh dashboard, and the CSRF token of their forms. */
async function signedInCustomer(provider: TestProvider, options: TestDashboardOptions = {}) {
  const dashboard = await dashboardApp(provider, options);
  const { cookie } = await signIn(dashboard);
  const token = csrfTokenIn(await (await dashboard.request("/dashboard", { cookie })).text());
  const accountId = dashboard.db.query<{ id: string }, []>("SELECT id FROM accounts").get()?.id ?? "";
  const post = (path: string, fields: Record<string, string>) =>
    dashboard.request(path, { cookie, ...form({ ...fields, csrf_token: token }) });
  const page = async (path: string) => {
    const response = await dashboard.request(path, { cookie });
    return { status: response.status, text: await response.text() };
  };
  return { dashboard, cookie, accountId, post, page };
}

export type Customer = Awaited<ReturnType<typeof signedInCustomer>>;

/** A key `you` made on the dashboard: the secret shown once, its id, and the answer that made it. */
export async function newKey(you: Customer, name: string) {
  const created = await you.post("/dashboard/keys", { name });
  const shown = await shownAfter(you.dashboard, created, you.cookie);
  const key = /sk_live_[0-9A-Za-z]{32}/.exec(shown)?.[0] ?? "";
  const id = you.dashboard.db.query<{ id: string }, [string]>("SELECT id FROM api_keys WHERE name = ?").get(name)?.id;
  return { key, id: id ?? "", created };
}
