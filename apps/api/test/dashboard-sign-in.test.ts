// Sign-in, sessions and CSRF against a real OpenID Provider on loopback, without a browser: the
// dashboard runs in-process (app.handle) and the provider's interaction is answered with fetch.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { helpLinksOf, MAX_ACTIVE_KEYS_PER_ACCOUNT } from "@social/core";
import { createKey, openDatabase, sqliteServices } from "@social/store-sqlite";
import { dashboardRoutes } from "../src/dashboard/routes.ts";
import { SessionStore, SIGN_IN_LIFETIME_MS } from "../src/dashboard/sessions.ts";
import { httpContext } from "../src/http/context.ts";
import {
  csrfTokenIn,
  dashboardApp,
  form,
  PUBLIC_URL,
  portsOn,
  setCookie,
  shownAfter,
  signIn,
  startSignIn,
} from "./dashboard-harness.ts";
import { startTestServer } from "./harness.ts";
import { answerAtProvider, startTestProvider, type TestProvider } from "./oidc-provider.ts";
import { rawRequest } from "./reliability/raw-http.ts";

let provider: TestProvider;

beforeAll(async () => {
  provider = await startTestProvider(`${PUBLIC_URL}/dashboard/callback`);
});
afterAll(() => provider.close());

describe("sign-in", () => {
  test("the authorization request uses PKCE S256, state and nonce", async () => {
    const { authorizationUrl } = await startSignIn(await dashboardApp(provider));
    const url = new URL(authorizationUrl);
    expect(url.origin).toBe(provider.issuer);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    for (const name of ["code_challenge", "state", "nonce"])
      expect(url.searchParams.get(name)?.length).toBeGreaterThan(20);
    expect(url.searchParams.get("redirect_uri")).toBe(`${PUBLIC_URL}/dashboard/callback`);
  });

  test("the first sign-in opens an account with 1000 credits; the next finds it again", async () => {
    const dashboard = await dashboardApp(provider);
    const first = await signIn(dashboard, "grace");
    expect(first.response.status).toBe(303);
    expect(first.response.headers.get("location")).toBe("/dashboard");
    const page = await (await dashboard.request("/dashboard", { cookie: first.cookie })).text();
    expect(page).toContain("1,000 credits");
    expect(page).toContain("Test grace");

    await signIn(dashboard, "grace");
    const accounts = dashboard.db
      .query<{ id: string; oidc_issuer: string; oidc_subject: string }, []>(
        "SELECT id, oidc_issuer, oidc_subject FROM accounts",
      )
      .all();
    expect(accounts).toHaveLength(1);
    expect(accounts[0]).toMatchObject({ oidc_issuer: provider.issuer, oidc_subject: "grace" });
  });

  test("the session cookie is HttpOnly and SameSite=Lax, and Secure only over https", async () => {
    const { attributes } = await signIn(await dashboardApp(provider));
    expect(attributes).toContain("HttpOnly");
    expect(attributes).toContain("SameSite=Lax");
    expect(attributes).not.toContain("Secure");
  });
});

describe("a Host that URL refuses (sent raw: fetch will not)", () => {
  test("sign-in and a signed-out page still redirect, each keeping the page to return to", async () => {
    const server = await startTestServer({
      oidc: { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret },
    });
    try {
      const get = (path: string) => rawRequest(server.url, `GET ${path} HTTP/1.1\r\nHost: x:y`);
      const page = await get("/dashboard/requests?status=402");
      expect(page.response.status).toBe(303);
      expect(page.response.headers.get("location")).toBe(
        `/dashboard/sign-in?return=${encodeURIComponent("/dashboard/requests?status=402")}`,
      );
      const signIn = await get(`/dashboard/sign-in?return=${encodeURIComponent("/dashboard/usage")}`);
      expect(signIn.response.status).toBe(303);
      expect(signIn.response.headers.get("location")).toStartWith(provider.issuer);
      expect(signIn.response.headers.getSetCookie().join(";")).toContain(encodeURIComponent("/dashboard/usage"));
    } finally {
      await server.close();
    }
  });
});

describe("sign-in floods", () => {
  test("over HTTP, sign-ins are limited per client address: a 429 page, and no row past the burst", async () => {
    const burst = 3;
    const server = await startTestServer({
      // Slow enough that no token comes back while the test runs, even on a busy machine.
      rateLimit: { ratePerSecond: 0.01, burst },
      oidc: { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret },
    });
    try {
      const signIn = () => fetch(`${server.url}/dashboard/sign-in`, { redirect: "manual" });
      for (let i = 0; i < burst; i++) expect((await signIn()).status).toBe(303);
      const refused = await signIn();
      expect(refused.status).toBe(429);
      expect(refused.headers.get("content-type")).toStartWith("text/html");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get("x-rate-limit-remaining")).toBe("0");
      expect(refused.headers.get("set-cookie")).toBeNull();
      expect(await refused.text()).toContain("Too many sign-ins");
      expect(server.sqlite().query("SELECT count(*) AS attempts FROM sign_in_attempts").get()).toEqual({
        attempts: burst,
      });
    } finally {
      await server.close();
    }
  });

  test("expired sign-in attempts are deleted when the next one starts", async () => {
    let now = 0;
    const db = openDatabase(":memory:");
    const sessions = new SessionStore(portsOn(db).sessions, "secret", () => now);
    const checks = { state: "s", nonce: "n", codeVerifier: "v" };
    await sessions.saveSignIn(checks);
    const stale = await sessions.saveSignIn(checks);
    now = SIGN_IN_LIFETIME_MS;
    await sessions.saveSignIn(checks);
    expect(db.query("SELECT count(*) AS attempts FROM sign_in_attempts").get()).toEqual({ attempts: 1 });
    expect(await sessions.takeSignIn(stale)).toBeUndefined();
  });
});

describe("callback errors", () => {
  test("a tampered state is refused, signs nobody in, and uses up the attempt", async () => {
    const dashboard = await dashboardApp(provider);
    const started = await startSignIn(dashboard);
    const callback = await answerAtProvider(started.authorizationUrl, { username: "mallory", decision: "allow" });
    const genuine = callback.search;
    callback.searchParams.set("state", "forged-state-value-that-does-not-match");
    const response = await dashboard.request(callback.pathname + callback.search, { cookie: started.cookie });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("could not be verified");
    expect(setCookie(response, "social_session")).toBeUndefined();

    const replay = await dashboard.request(`/dashboard/callback${genuine}`, { cookie: started.cookie });
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain("expired or was already used");
  });

  test("an ID token whose nonce differs from the one sent is refused", async () => {
    const dashboard = await dashboardApp(provider);
    const started = await startSignIn(dashboard);
    dashboard.db.run("UPDATE sign_in_attempts SET nonce = 'a-nonce-this-sign-in-never-sent'");
    const callback = await answerAtProvider(started.authorizationUrl, { username: "eve", decision: "allow" });
    const response = await dashboard.request(callback.pathname + callback.search, { cookie: started.cookie });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("could not be verified (unexpected ID Token &#34;nonce&#34; claim value)");
    expect(setCookie(response, "social_session")).toBeUndefined();
    expect(dashboard.db.query("SELECT count(*) AS n FROM accounts").get()).toEqual({ n: 0 });
  });

  test("an error from the provider is shown and signs nobody in", async () => {
    const dashboard = await dashboardApp(provider);
    const started = await startSignIn(dashboard);
    const callback = await answerAtProvider(started.authorizationUrl, { username: "ada", decision: "deny" });
    expect(callback.searchParams.get("error")).toBe("access_denied");
    const response = await dashboard.request(callback.pathname + callback.search, { cookie: started.cookie });
    expect(response.status).toBe(400);
    const page = await response.text();
    expect(page).toContain("Sign-in refused");
    expect(page).toContain("refused to sign in");
    expect(setCookie(response, "social_session")).toBeUndefined();
  });

  test("a callback without the sign-in cookie is refused", async () => {
    const dashboard = await dashboardApp(provider);
    const started = await startSignIn(dashboard);
    const callback = await answerAtProvider(started.authorizationUrl, { username: "ada", decision: "allow" });
    const response = await dashboard.request(callback.pathname + callback.search);
    expect(response.status).toBe(400);
  });

  test("an unreachable provider gives a page saying so", async () => {
    const dashboard = await dashboardApp(provider, {
      oidc: { issuer: "http://127.0.0.1:9", clientId: "x", clientSecret: "y" },
    });
    const response = await dashboard.request("/dashboard/sign-in");
    expect(response.status).toBe(503);
    expect(await response.text()).toContain("cannot be reached");
  });
});

describe("sessions and CSRF", () => {
  test("the database keeps a digest of the session token, not the token", async () => {
    const dashboard = await dashboardApp(provider);
    const { cookie } = await signIn(dashboard);
    const token = cookie.split("=")[1] ?? "";
    const ids = dashboard.db.query<{ id: string }, []>("SELECT id FROM sessions").all();
    expect(ids).toHaveLength(1);
    expect(ids[0]?.id).not.toContain(token);
  });

  test("an expired or unknown session is signed out", async () => {
    const dashboard = await dashboardApp(provider);
    const { cookie } = await signIn(dashboard);
    expect(await (await dashboard.request("/dashboard", { cookie: "social_session=made-up" })).text()).toContain(
      'href="/dashboard/sign-in?return=%2Fdashboard"',
    );
    dashboard.db.run("UPDATE sessions SET expires_at = 0");
    expect(await (await dashboard.request("/dashboard", { cookie })).text()).toContain(
      'href="/dashboard/sign-in?return=%2Fdashboard"',
    );
  });

  test("forms are refused without the session's CSRF token", async () => {
    const dashboard = await dashboardApp(provider);
    const { cookie } = await signIn(dashboard);
    const token = csrfTokenIn(await (await dashboard.request("/dashboard", { cookie })).text());

    const forged: Record<string, string>[] = [
      { name: "k" },
      { name: "k", csrf_token: "wrong" },
      { name: "k", csrf_token: `${token}x` },
    ];
    for (const fields of forged) {
      expect((await dashboard.request("/dashboard/keys", { cookie, ...form(fields) })).status).toBe(403);
    }
    expect((await dashboard.request("/dashboard/sign-out", { cookie, ...form({}) })).status).toBe(403);
    expect(dashboard.db.query("SELECT count(*) AS n FROM api_keys").get()).toEqual({ n: 0 });

    const created = await dashboard.request("/dashboard/keys", { cookie, ...form({ name: "ci", csrf_token: token }) });
    expect(created.status).toBe(303);
    expect(await shownAfter(dashboard, created, cookie)).toMatch(/sk_live_[0-9A-Za-z]{32}/);
  });

  test("a CSRF token belongs to its session", async () => {
    const dashboard = await dashboardApp(provider);
    const ada = await signIn(dashboard, "ada");
    const bob = await signIn(dashboard, "bob");
    const adaToken = csrfTokenIn(await (await dashboard.request("/dashboard", { cookie: ada.cookie })).text());
    const response = await dashboard.request("/dashboard/keys", {
      cookie: bob.cookie,
      ...form({ name: "k", csrf_token: adaToken }),
    });
    expect(response.status).toBe(403);
  });

  test("signing out ends the session on the server, then at the provider, back to a signed-out page", async () => {
    const dashboard = await dashboardApp(provider);
    const { cookie } = await signIn(dashboard);
    const token = csrfTokenIn(await (await dashboard.request("/dashboard", { cookie })).text());
    const response = await dashboard.request("/dashboard/sign-out", { cookie, ...form({ csrf_token: token }) });
    expect(response.status).toBe(200);
    const endSession = new URL(
      /<a class="button" href="([^"]+)" id="end-session">/
        .exec(await response.clone().text())?.[1]
        ?.replaceAll("&#38;", "&") ?? "",
    );
    expect(endSession.href.startsWith(`${provider.issuer}/`)).toBe(true);
    expect(endSession.searchParams.get("post_logout_redirect_uri")).toBe(`${PUBLIC_URL}/dashboard/signed-out`);
    expect(endSession.searchParams.get("client_id")).toBe(provider.clientId);
    expect((await dashboard.request("/dashboard/signed-out")).status).toBe(200);
    expect(setCookie(response, "social_session")?.attributes).toContain("Max-Age=0");
    expect(dashboard.db.query("SELECT count(*) AS n FROM sessions").get()).toEqual({ n: 0 });
    expect(await (await dashboard.request("/dashboard", { cookie })).text()).toContain(
      'href="/dashboard/sign-in?return=%2Fdashboard"',
    );
  });

  test("nobody can revoke another account's key", async () => {
    const dashboard = await dashboardApp(provider);
    const ada = await signIn(dashboard, "ada");
    const adaToken = csrfTokenIn(await (await dashboard.request("/dashboard", { cookie: ada.cookie })).text());
    await dashboard.request("/dashboard/keys", { cookie: ada.cookie, ...form({ name: "mine", csrf_token: adaToken }) });
    const keyId = dashboard.db.query<{ id: string }, []>("SELECT id FROM api_keys").get()?.id;

    const bob = await signIn(dashboard, "bob");
    const bobToken = csrfTokenIn(await (await dashboard.request("/dashboard", { cookie: bob.cookie })).text());
    const response = await dashboard.request(`/dashboard/keys/${keyId}/revoke`, {
      cookie: bob.cookie,
      ...form({ csrf_token: bobToken }),
    });
    expect(response.status).toBe(404);
    expect(dashboard.db.query("SELECT revoked_at FROM api_keys").get()).toEqual({ revoked_at: null });
  });

  test("a key name is required", async () => {
    const dashboard = await dashboardApp(provider);
    const { cookie } = await signIn(dashboard);
    const token = csrfTokenIn(await (await dashboard.request("/dashboard", { cookie })).text());
    const response = await dashboard.request("/dashboard/keys", { cookie, ...form({ name: "  ", csrf_token: token }) });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("Give the key a name.");
  });

  test(`the key form refuses a key past the cap of ${MAX_ACTIVE_KEYS_PER_ACCOUNT} active keys, saying why`, async () => {
    const dashboard = await dashboardApp(provider);
    const { cookie } = await signIn(dashboard);
    const token = csrfTokenIn(await (await dashboard.request("/dashboard", { cookie })).text());
    const createOne = () => dashboard.request("/dashboard/keys", { cookie, ...form({ name: "k", csrf_token: token }) });
    expect((await createOne()).status).toBe(303);
    const { id: accountId } = dashboard.db.query<{ id: string }, []>("SELECT id FROM accounts").get() ?? { id: "" };
    for (let i = 1; i < MAX_ACTIVE_KEYS_PER_ACCOUNT; i++) createKey(dashboard.db, accountId, `k${i}`);

    const refused = await createOne();
    expect(refused.status).toBe(409);
    const page = await refused.text();
    expect(page).toContain(`You already have ${MAX_ACTIVE_KEYS_PER_ACCOUNT} active keys`);
    expect(page).not.toMatch(/sk_live_[0-9A-Za-z]{32}/);
    expect(dashboard.db.query("SELECT count(*) AS n FROM api_keys").get()).toEqual({ n: MAX_ACTIVE_KEYS_PER_ACCOUNT });
  });
});

describe("pages", () => {
  test("every HTML page carries the security headers", async () => {
    const dashboard = await dashboardApp(provider);
    for (const path of ["/dashboard", "/billing"]) {
      const response = await dashboard.request(path);
      expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    }
  });

  test("the usage and request pages need a session, and sign-in comes back to them", async () => {
    const dashboard = await dashboardApp(provider);
    for (const path of ["/dashboard/usage", "/dashboard/requests?status=402"]) {
      const response = await dashboard.request(path);
      expect(response.status).toBe(303);
      expect(response.headers.get("location")).toBe(`/dashboard/sign-in?return=${encodeURIComponent(path)}`);
    }
  });

  test("without a provider the dashboard says how to configure one, and shows no command", async () => {
    const db = openDatabase(":memory:");
    const services = await sqliteServices(db, { rateLimit: { ratePerSecond: 0, burst: 1 } });
    const context = httpContext({ services, helpLinks: helpLinksOf(PUBLIC_URL), log: () => {} });
    const app = dashboardRoutes(
      context,
      {
        ...portsOn(db),
        publicUrl: PUBLIC_URL,
        requestLogDays: 30,
        billing: { plans: [] },
        sessionSecret: "s",
      },
      { allowPrivateWebhooks: false },
    );
    const page = await (await app.handle(new Request(`${PUBLIC_URL}/dashboard`))).text();
    expect(page).toContain("OIDC_ISSUER");
    expect(page).toContain(`${PUBLIC_URL}/dashboard/callback`);
    expect(page).not.toContain("bun run admin");
    const signIn = await app.handle(new Request(`${PUBLIC_URL}/dashboard/sign-in`));
    expect(signIn.headers.get("location")).toBe("/dashboard");
  });

  test("without a way to buy, the billing page says the operator grants credits, and never shows the CLI", async () => {
    const page = await (await (await dashboardApp(provider)).request("/billing")).text();
    expect(page).toContain("<h1>Billing");
    expect(page).toContain("granted by its operator");
    expect(page).not.toContain("bun run admin");
    expect(page).toContain('href="/dashboard/sign-in?return=%2Fbilling"');
  });
});

describe("over https", () => {
  test("the cookies are Secure and take the __Host- prefix", async () => {
    const dashboard = await dashboardApp(provider, { publicUrl: "https://dashboard.example" });
    const response = await dashboard.request("/dashboard/sign-in");
    const signInCookie = setCookie(response, "__Host-social_sign_in");
    expect(signInCookie?.attributes).toContain("Secure");
    expect(signInCookie?.attributes).toContain("Path=/");
    expect(signInCookie?.attributes).toContain("HttpOnly");
  });
});
