// The dashboard's pages and forms in-process against a real OpenID Provider: the low-balance warning,
// the request log's filters and pages, billing as the operator configures it, sign-in coming back where
// it started, and unknown dashboard paths as pages. Keys' pages and forms: dashboard-keys.test.ts.
import { describe, expect, test } from "bun:test";
import { readServerConfig } from "@social/composition";
import { BALANCE_REFUSAL, KEY_LIMIT_REFUSAL, purchaseReason } from "@social/core";
import { returnPath } from "../src/dashboard/return-path.ts";
import { type Dashboard, newKey, shownAfter, signIn, testDashboards } from "./dashboard-harness.ts";

const dashboards = testDashboards();
const customer = dashboards.customer;

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
    const dashboard: Dashboard = await dashboards.app();
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
