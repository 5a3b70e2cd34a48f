// The dashboard's pages and forms in-process against a real OpenID Provider: a new key shown once
// across a redirect, revocation behind a confirmation, the low-balance warning, the request log's
// filters and pages, billing as the operator configures it, sign-in coming back where it started, and
// unknown dashboard paths as pages.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readServerConfig } from "@social/composition";
import { BALANCE_REFUSAL, KEY_LIMIT_REFUSAL, purchaseReason } from "@social/core";
import { returnPath } from "../src/dashboard/return-path.ts";
import {
  csrfTokenIn,
  type Dashboard,
  dashboardApp,
  form,
  PUBLIC_URL,
  setCookie,
  shownAfter,
  signIn,
} from "./dashboard-harness.ts";
import { startTestProvider, type TestProvider } from "./oidc-provider.ts";

let provider: TestProvider;

beforeAll(async () => {
  provider = await startTestProvider(`${PUBLIC_URL}/dashboard/callback`);
});
afterAll(() => provider.close());

/** A signed-in customer of a fresh dashboard, and the CSRF token of their forms. */
async function customer(options: Parameters<typeof dashboardApp>[1] = {}) {
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

async function newKey(you: Awaited<ReturnType<typeof customer>>, name: string) {
  const created = await you.post("/dashboard/keys", { name });
  const shown = await shownAfter(you.dashboard, created, you.cookie);
  const key = /sk_live_[0-9A-Za-z]{32}/.exec(shown)?.[0] ?? "";
  const id = you.dashboard.db.query<{ id: string }, [string]>("SELECT id FROM api_keys WHERE name = ?").get(name)?.id;
  return { key, id: id ?? "", created };
}

/** The fields a browser sends with a key's form as the page shows it (its text fields and selection). */
function keyFormFields(page: string): Record<string, string> {
  const form = page.slice(page.indexOf("<h2>Change this key</h2>"));
  const fields: Record<string, string> = {};
  for (const [tag] of form.matchAll(/<input type="(?:text|number|date|hidden)"[^>]*>/g)) {
    const name = / name="([^"]+)"/.exec(tag)?.[1];
    if (name) fields[name] = / value="([^"]*)"/.exec(tag)?.[1] ?? "";
  }
  for (const [, name, options] of form.matchAll(/<select id="[^"]+" name="([^"]+)">(.*?)<\/select>/g)) {
    fields[name as string] = /<option value="([^"]+)" selected>/.exec(options as string)?.[1] ?? "";
  }
  return fields;
}

describe("a new key", () => {
  test("is made by a 303 and shown once on the page it leads to; a reload shows it no more", async () => {
    const you = await customer();
    const { key, created } = await newKey(you, "ci");
    expect(created.status).toBe(303);
    expect(key).toMatch(/^sk_live_/);
    // The message rides in a sealed cookie: the key is nowhere in it as text.
    expect(setCookie(created, "social_flash")?.pair).not.toContain(key);
    const flash = setCookie(created, "social_flash")?.pair ?? "";
    const first = await you.dashboard.request("/dashboard", { cookie: `${you.cookie}; ${flash}` });
    expect(setCookie(first, "social_flash")?.attributes).toContain("Max-Age=0");
    expect((await you.page("/dashboard")).text).not.toContain(key);
    expect(you.dashboard.db.query("SELECT count(*) AS n FROM api_keys").get()).toEqual({ n: 1 });
  });

  test("is shown to the session that made it only: not after sign-out, not to the next person", async () => {
    const dashboard = await dashboardApp(provider);
    const ada = await signIn(dashboard, "ada");
    const token = csrfTokenIn(await (await dashboard.request("/dashboard", { cookie: ada.cookie })).text());
    const created = await dashboard.request("/dashboard/keys", {
      cookie: ada.cookie,
      ...form({ name: "ada's", csrf_token: token }),
    });
    const flash = setCookie(created, "social_flash")?.pair ?? "";
    // Ada signs out without opening the dashboard: the message goes with her session.
    const out = await dashboard.request("/dashboard/sign-out", { cookie: ada.cookie, ...form({ csrf_token: token }) });
    expect(setCookie(out, "social_flash")?.attributes).toContain("Max-Age=0");
    // Even if a browser kept the cookie, Bob's session cannot open it.
    const bob = await signIn(dashboard, "bob");
    const page = await (await dashboard.request("/dashboard", { cookie: `${bob.cookie}; ${flash}` })).text();
    expect(page).not.toMatch(/sk_live_[0-9A-Za-z]{32}/);
    expect(page).not.toContain("ada's");
  });

  test("a flash cookie that was altered or sealed elsewhere shows nothing", async () => {
    const you = await customer();
    const { created } = await newKey(you, "ci");
    const pair = setCookie(created, "social_flash")?.pair ?? "";
    const altered = `${pair.slice(0, -3)}${pair.endsWith("A") ? "BBB" : "AAA"}`;
    const page = await you.dashboard.request("/dashboard", { cookie: `${you.cookie}; ${altered}` });
    expect(await page.text()).not.toMatch(/sk_live_[0-9A-Za-z]{32}/);
    const elsewhere = await customer({ sessionSecret: "another secret entirely" });
    const foreign = await elsewhere.dashboard.request("/dashboard", { cookie: `${elsewhere.cookie}; ${pair}` });
    expect(await foreign.text()).not.toMatch(/sk_live_[0-9A-Za-z]{32}/);
  });
});

describe("revoking a key", () => {
  test("asks first, then revokes and says so", async () => {
    const you = await customer();
    const { id } = await newKey(you, "old");
    const question = await you.page(`/dashboard/keys/${id}/revoke`);
    expect(question.status).toBe(200);
    expect(question.text).toContain("Revoke the key <strong>old</strong>");
    expect(you.dashboard.db.query("SELECT revoked_at FROM api_keys").get()).toEqual({ revoked_at: null });
    const answer = await you.post(`/dashboard/keys/${id}/revoke`, {});
    expect(answer.status).toBe(303);
    expect(await shownAfter(you.dashboard, answer, you.cookie)).toContain("The key “old”");
    expect(
      you.dashboard.db.query<{ revoked_at: number | null }, []>("SELECT revoked_at FROM api_keys").get()?.revoked_at,
    ).toBeNumber();
    // Twice is a page that says it is done already, not a second revocation.
    expect((await you.post(`/dashboard/keys/${id}/revoke`, {})).status).toBe(404);
    expect((await you.page(`/dashboard/keys/${id}/revoke`)).text).toContain("revoked already");
  });
});

describe("a key's page", () => {
  test("changes the name, limit and expiry through the key rules; a refused change keeps what was typed", async () => {
    const you = await customer();
    const { id } = await newKey(you, "ci");
    expect((await you.page("/dashboard")).text).toContain(`<a href="/dashboard/keys/${id}">ci</a>`);
    const shown = await you.page(`/dashboard/keys/${id}`);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('value="ci"');

    const saved = await you.post(`/dashboard/keys/${id}`, {
      name: "ci (nightly)",
      limit: "5",
      per: "day",
      expires: "2099-01-31",
    });
    expect(saved.status).toBe(303);
    expect(await shownAfter(you.dashboard, saved, you.cookie)).toContain("The key “ci (nightly)” (");
    expect(await you.dashboard.accounts.key(id)).toMatchObject({
      name: "ci (nightly)",
      allowance: { credits: 5, per: "day", remaining: 5 },
      expiresAt: Date.UTC(2099, 0, 31),
    });
    const edited = (await you.page(`/dashboard/keys/${id}`)).text;
    expect(edited).toContain('value="5"');
    expect(edited).toContain('<option value="day" selected>');
    expect(edited).toContain('value="2099-01-31"');

    const refused = await you.post(`/dashboard/keys/${id}`, {
      name: "renamed",
      limit: "five",
      per: "total",
      expires: "",
    });
    expect(refused.status).toBe(400);
    const page = await refused.text();
    expect(page).toContain("A key&#39;s limit is a whole number of credits");
    expect(page).toContain('value="renamed"');
    expect((await you.dashboard.accounts.key(id))?.name).toBe("ci (nightly)");

    // Emptied, the limit and expiry go: the balance is the key's only limit again.
    await you.post(`/dashboard/keys/${id}`, { name: "ci", limit: "", per: "total", expires: "" });
    expect(await you.dashboard.accounts.key(id)).toMatchObject({ name: "ci", allowance: null, expiresAt: null });
  });

  test("an expired key stays expired when its form is saved as shown; turning it back on is a choice", async () => {
    const you = await customer();
    const { id } = await newKey(you, "lapsed");
    const lapsedAt = Date.UTC(2001, 0, 1);
    await you.dashboard.accounts.updateKey(id, { name: "lapsed", expiresAt: lapsedAt });
    const page = (await you.page(`/dashboard/keys/${id}`)).text;
    // Renamed and limited through the form as the page shows it: the expiry stays, and so the refusal.
    const shown = keyFormFields(page);
    expect(shown.expires).toBe("2001-01-01");
    const renamed = await you.post(`/dashboard/keys/${id}`, { ...shown, name: "renamed", limit: "7" });
    expect(renamed.status).toBe(303);
    expect(await you.dashboard.accounts.key(id)).toMatchObject({ name: "renamed", expiresAt: lapsedAt });
    expect((await you.dashboard.accounts.key(id))?.allowance?.credits).toBe(7);
    expect(page).toContain("This key expired 2001-01-01 00:00 UTC: saving keeps it expired");

    // The field emptied alone is no choice: refused, and the key stays expired.
    const emptied = await you.post(`/dashboard/keys/${id}`, { ...shown, expires: "" });
    expect(emptied.status).toBe(400);
    expect(await emptied.text()).toContain("This key has expired: to turn it back on, choose a later day or tick");
    expect((await you.dashboard.accounts.key(id))?.expiresAt).toBe(lapsedAt);

    // A later day, or the box ticked, turns it back on.
    await you.post(`/dashboard/keys/${id}`, { ...shown, expires: "2099-01-31" });
    expect((await you.dashboard.accounts.key(id))?.expiresAt).toBe(Date.UTC(2099, 0, 31));
    await you.dashboard.accounts.updateKey(id, { name: "lapsed", expiresAt: lapsedAt });
    const revived = await you.post(`/dashboard/keys/${id}`, { ...keyFormFields(page), revive: "yes" });
    expect(revived.status).toBe(303);
    expect((await you.dashboard.accounts.key(id))?.expiresAt).toBeNull();
  });

  test("a key's expiry is kept by a save that leaves its field as shown, to the millisecond", async () => {
    const you = await customer();
    const { id } = await newKey(you, "timed");
    const at = Date.UTC(2099, 0, 31, 12, 0, 0, 500);
    await you.dashboard.accounts.updateKey(id, { name: "timed", expiresAt: at });
    const shown = keyFormFields((await you.page(`/dashboard/keys/${id}`)).text);
    expect(shown.expires).toBe("2099-01-31T12:00:00Z");
    expect((await you.post(`/dashboard/keys/${id}`, { ...shown, name: "renamed" })).status).toBe(303);
    expect(await you.dashboard.accounts.key(id)).toMatchObject({ name: "renamed", expiresAt: at });
  });

  test("is the account's own: another's key is a 404, and a revoked key is shown but not changed", async () => {
    const you = await customer();
    const { id } = await newKey(you, "old");
    const bob = await you.dashboard.accounts.openAccount("Bob");
    expect((await you.page(`/dashboard/keys/${bob.key.keyId}`)).status).toBe(404);
    expect((await you.post(`/dashboard/keys/${bob.key.keyId}`, { name: "mine now" })).status).toBe(404);
    expect((await you.dashboard.accounts.key(bob.key.keyId))?.name).toBe("Bob");
    await you.post(`/dashboard/keys/${id}/revoke`, {});
    const revoked = await you.page(`/dashboard/keys/${id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.text).toContain("A revoked key cannot be changed.");
    expect((await you.post(`/dashboard/keys/${id}`, { name: "back" })).status).toBe(404);
    expect((await you.dashboard.accounts.key(id))?.name).toBe("old");
  });
});

describe("the low-balance warning", () => {
  test("defaults to a tenth of the last credits added; set, it shows on every page below it", async () => {
    const you = await customer();
    expect((await you.page("/dashboard")).text).not.toContain('id="balance-alert"');
    expect((await you.page("/dashboard")).text).toContain("(100 credits)");
    const set = await you.post("/dashboard/warning", { credits: "1500" });
    expect(set.status).toBe(303);
    expect(await shownAfter(you.dashboard, set, you.cookie)).toContain("below 1,500 credits");
    for (const path of ["/dashboard", "/dashboard/usage", "/dashboard/requests", "/billing"]) {
      const { text } = await you.page(path);
      expect([path, text]).toEqual([
        path,
        expect.stringContaining("1,000 credits left, below your warning at 1,500 credits"),
      ]);
    }
    expect((await you.post("/dashboard/warning", { credits: "" })).status).toBe(303);
    expect((await you.page("/dashboard")).text).not.toContain('id="balance-alert"');
  });

  test("counts the balance's 402s since the last top-up while low, never a key's limit; refuses a warning that is no number", async () => {
    const you = await customer();
    const keyId = (await newKey(you, "k")).id;
    const at = Date.now();
    for (const [requestId, refusal, createdAt] of [
      ["req_1", BALANCE_REFUSAL, at + 1000],
      ["req_2", KEY_LIMIT_REFUSAL, at + 1000],
      ["req_3", BALANCE_REFUSAL, at - 86_400_000],
    ] as const) {
      you.dashboard.requestLog.append({
        requestId,
        accountId: you.accountId,
        keyId,
        endpoint: "search_recent",
        call: "/v1/search/recent?query=coffee",
        ...refusal,
        message: "refused",
        durationMs: 1,
        createdAt,
      });
    }
    await you.dashboard.requestLog.flush();
    // Not low: no banner, whatever was refused.
    expect((await you.page("/dashboard")).text).not.toContain('id="balance-alert"');
    expect((await you.post("/dashboard/warning", { credits: "5000" })).status).toBe(303);
    const low = (await you.page("/dashboard")).text;
    expect(low).toContain("1 request refused for lack of credits (402) since credits were last added");
    // "See which" lists the balance's refusals only, not the key's limit's.
    expect(low).toContain('<a href="/dashboard/requests?status=insufficient_credits">see which</a>');
    const which = (await you.page("/dashboard/requests?status=insufficient_credits")).text;
    expect(which).toContain("req_1");
    expect(which).not.toContain("req_2");
    const limited = (await you.page("/dashboard/requests?status=key_limit")).text;
    expect(limited).toContain("req_2");
    expect(limited).not.toContain("req_1");
    // A top-up above the warning ends it.
    await you.dashboard.accounts.grantCredits(you.accountId, 10_000);
    expect((await you.page("/dashboard")).text).not.toContain('id="balance-alert"');
    for (const wrong of ["-5", "1.5", "lots", "99999999999999999"]) {
      const refused = await you.post("/dashboard/warning", { credits: wrong });
      expect([wrong, refused.status]).toEqual([wrong, 400]);
      // The error stands at the warning's own field, with what was typed; the key form is untouched.
      const page = await refused.text();
      expect(page).toContain('<p class="notice error" role="alert" id="warning-error">');
      expect(page).toContain(`value="${wrong}" aria-describedby="warning-hint warning-error" aria-invalid="true"`);
      expect(page).not.toContain('id="key-name-error"');
    }
  });
});

describe("the request log", () => {
  async function withLog() {
    const you = await customer();
    const first = await newKey(you, "first");
    const second = await newKey(you, "second");
    const at = Date.now() - 60_000;
    const log = you.dashboard.requestLog;
    for (let i = 0; i < 60; i++) {
      log.append({
        requestId: `req_${(0x100 + i).toString(16)}`,
        accountId: you.accountId,
        keyId: i % 2 === 0 ? first.id : second.id,
        endpoint: i % 3 === 0 ? "user" : "search_recent",
        call: i % 3 === 0 ? "/2/users/by/username/ada?user.fields=created_at" : `/v1/search/recent?query=coffee+${i}`,
        status: i % 4 === 0 ? 402 : 200,
        errorCode: i % 4 === 0 ? "insufficient_credits" : null,
        message: i % 4 === 0 ? `Insufficient credits: request ${i}` : null,
        durationMs: i,
        createdAt: at + i * 100,
      });
    }
    await log.flush();
    return { you, first, second };
  }

  const rowsOf = (page: string) => [...page.matchAll(/<tr><td>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC<\/td>/g)].length;

  /** The page a link of `rel` leads to, or undefined where the page has none. */
  const linkOf = (page: string, rel: "next" | "prev") =>
    new RegExp(`href="(/dashboard/requests\\?[^"]+)" rel="${rel}"`).exec(page)?.[1]?.replaceAll("&#38;", "&");

  test("lists every request to the second, pages of 50 with links to the older and newer ones", async () => {
    const { you } = await withLog();
    const first = await you.page("/dashboard/requests");
    expect(rowsOf(first.text)).toBe(50);
    expect(first.text).toContain("<code>req_13b</code>");
    expect(linkOf(first.text, "prev")).toBeUndefined();
    const older = linkOf(first.text, "next");
    expect(older).toContain("before=");
    const second = await you.page(older as string);
    expect(rowsOf(second.text)).toBe(10);
    expect(second.text).toContain("<code>req_100</code>");
    expect(linkOf(second.text, "next")).toBeUndefined();
    // Newer leads back to the 50 above, the newest first, and it is the first page again.
    const newer = linkOf(second.text, "prev");
    expect(newer).toContain("after=");
    const back = await you.page(newer as string);
    expect(rowsOf(back.text)).toBe(50);
    expect(back.text.indexOf("<code>req_13b</code>")).toBeLessThan(back.text.indexOf("<code>req_10a</code>"));
    expect(linkOf(back.text, "prev")).toBeUndefined();
    expect(linkOf(back.text, "next")).toBe(older);
  });

  test("Newer keeps the filters: the refusals above a page are the filter's own", async () => {
    const { you } = await withLog();
    // Below the first page's last entry (req_10a): the balance's refusals req_108, req_104 and req_100.
    const position = linkOf((await you.page("/dashboard/requests")).text, "next")?.split("before=")[1];
    const below = await you.page(`/dashboard/requests?status=insufficient_credits&before=${position}`);
    expect(rowsOf(below.text)).toBe(3);
    const newer = linkOf(below.text, "prev");
    expect(newer).toContain("status=insufficient_credits");
    // Above req_108: the twelve others, every fourth from req_10c to req_138, and nothing else.
    const above = await you.page(newer as string);
    expect(rowsOf(above.text)).toBe(12);
    expect(above.text).toContain("<code>req_138</code>");
    expect(above.text).not.toContain("<code>req_13b</code>");
    expect(linkOf(above.text, "prev")).toBeUndefined();
  });

  test("filters by key, status and endpoint, and finds one request by its id", async () => {
    const { you, second } = await withLog();
    expect(rowsOf((await you.page(`/dashboard/requests?key=${second.id}`)).text)).toBe(30);
    expect(rowsOf((await you.page("/dashboard/requests?status=402")).text)).toBe(15);
    expect(rowsOf((await you.page("/dashboard/requests?status=error&endpoint=user")).text)).toBe(5);
    const one = await you.page("/dashboard/requests?id=req_120");
    expect(rowsOf(one.text)).toBe(1);
    expect(one.text).toContain("insufficient_credits");
    expect((await you.page("/dashboard/requests?id=req_999")).text).toContain("No request matches these filters.");
  });

  test("shows the path each client called, and each request in full on its own page", async () => {
    const { you } = await withLog();
    const list = (await you.page("/dashboard/requests")).text;
    // A /2 call is listed as the /2 path it was, not as its /v1 endpoint.
    expect(list).toContain("<td><code>/2/users/by/username/ada</code></td>");
    expect(list).not.toContain("/v1/users/by/username/");
    expect(list).toContain('<a href="/dashboard/requests/req_13b"><code>req_13b</code></a>');
    // Entry 48 (req_130): a /2 call the balance refused.
    const refused = await you.page("/dashboard/requests/req_130");
    expect(refused.status).toBe(200);
    const detail = refused.text;
    expect(detail).toContain('<code id="called-path">/2/users/by/username/ada</code>');
    expect(detail).toContain("<td><code>user.fields</code></td><td><code>created_at</code></td>");
    expect(detail).toContain('<dd id="error-message">Insufficient credits: request 48</dd>');
    expect(detail).toContain('<dd id="refusal-reason">the balance (<code>balance</code>)');
    const answered = (await you.page("/dashboard/requests/req_101")).text;
    expect(answered).toContain("<td><code>query</code></td><td><code>coffee 1</code></td>");
    expect(answered).not.toContain('id="error-message"');
    expect((await you.page("/dashboard/requests/req_999")).status).toBe(404);
    expect((await you.page("/dashboard/requests/nonsense")).status).toBe(404);
  });

  test("a filter that is not one of the choices is a 400 page, another account's key too", async () => {
    const { you } = await withLog();
    for (const query of [
      "key=key_nobody",
      "status=418",
      "endpoint=nowhere",
      "id=not-an-id",
      "before=yesterday",
      "before=1-req_1&after=1-req_1",
    ]) {
      const page = await you.page(`/dashboard/requests?${query}`);
      expect([query, page.status]).toEqual([query, 400]);
    }
  });
});

describe("billing", () => {
  const plans = JSON.stringify([{ name: "Starter", credits: 10_000, price: "$10", note: "No expiry" }]);

  test("with a checkout, a Buy button per plan naming the account and the plan, and the history of grants", async () => {
    const two = JSON.stringify([...JSON.parse(plans), { name: "Pro & Co", credits: 120_000, price: "€96" }]);
    const you = await customer({
      billing: readServerConfig({
        BILLING_URL: "https://pay.example/buy?account={account_id}&plan={plan}",
        BILLING_PLANS: two,
      }).billing,
    });
    const { text } = await you.page("/billing");
    expect(text).toContain(
      `<a class="button" href="https://pay.example/buy?account=${you.accountId}&#38;plan=Starter">Buy Starter</a>`,
    );
    expect(text).toContain(
      `<a class="button" href="https://pay.example/buy?account=${you.accountId}&#38;plan=Pro%20%26%20Co">Buy Pro &#38; Co</a>`,
    );
    expect(text).toContain("$1.00 per 1,000 credits");
    expect(text).toContain("€0.80 per 1,000 credits");
    expect(text).toContain("<h3>Starter</h3>");
    expect(text).toContain("10,000 credits");
    expect(text).toContain('<table id="grants">');
    expect(text).toContain("sign-up credits");
    expect(text).not.toContain("bun run admin");
  });

  test("a purchase the operator records with --plan is listed as that purchase, not as a gift", async () => {
    const you = await customer();
    await you.dashboard.accounts.grantCredits(you.accountId, 10_000, purchaseReason("Starter"));
    await you.dashboard.accounts.grantCredits(you.accountId, 5);
    const { text } = await you.page("/billing");
    expect(text).toContain("<td>purchase: Starter</td>");
    expect(text).toContain("<td>operator grant</td>");
  });

  test("with a contact, where to write; an e-mail address as a mailto link", async () => {
    const mail = await customer({ billing: readServerConfig({ BILLING_CONTACT: "sales@example.com" }).billing });
    expect((await mail.page("/billing")).text).toContain('href="mailto:sales@example.com"');
    const web = await customer({
      billing: readServerConfig({ BILLING_CONTACT: "https://example.com/contact" }).billing,
    });
    expect((await web.page("/billing")).text).toContain('href="https://example.com/contact"');
  });

  test("settings that cannot be right stop the server at start with what is wrong", () => {
    expect(() => readServerConfig({ BILLING_URL: "javascript:alert(1)" })).toThrow(
      "BILLING_URL must be an http(s) URL",
    );
    expect(() => readServerConfig({ BILLING_PLANS: "[{" })).toThrow("BILLING_PLANS must be JSON");
    expect(() => readServerConfig({ BILLING_PLANS: '[{"name":"A","credits":0,"price":"$1"}]' })).toThrow(
      "BILLING_PLANS 0.credits",
    );
    expect(() => readServerConfig({ BILLING_CONTACT: "call us" })).toThrow("BILLING_CONTACT");
  });
});

describe("sign-in", () => {
  test("comes back to the page it started from, and only to a page of this site", async () => {
    const dashboard: Dashboard = await dashboardApp(provider);
    const back = await signIn(dashboard, "ada", "/dashboard/sign-in?return=%2Fdashboard%2Frequests%3Fstatus%3D402");
    expect(back.response.headers.get("location")).toBe("/dashboard/requests?status=402");
    for (const elsewhere of ["//evil.example/x", "https://evil.example", "/\\evil.example", "javascript:x", ""]) {
      expect([elsewhere, returnPath(elsewhere)]).toEqual([elsewhere, "/dashboard"]);
    }
    expect(returnPath("/dashboard/sign-in?return=/x")).toBe("/dashboard");
    expect(returnPath("/billing")).toBe("/billing");
  });
});

describe("paths the dashboard does not have", () => {
  test("are a 404 page in HTML, signed in or not", async () => {
    const you = await customer();
    for (const path of ["/dashboard/nothing", "/dashboard/keys"]) {
      const response = await you.dashboard.request(path);
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toStartWith("text/html");
      expect(await response.text()).toContain("There is no page at");
    }
  });
});
