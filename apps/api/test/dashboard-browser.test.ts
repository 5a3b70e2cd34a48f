// The whole path a new customer takes, in headless Chromium against a real OpenID Provider on loopback:
// from the landing page's sign-in step, see the 1000 sign-up credits, create a key (shown once, across a
// reload), run the docs' own search example with it and find each answer in the request log and on its
// page, be warned of a low balance, see usage and billing, lower the key's limit on its page and meet the
// 402 that points there, revoke the key behind a confirmation, see the API refuse it, and sign out; and
// the monitors: one created through the form and listed, a monitor's page, paused there, and one
// deleted after its question. Every page is checked with axe-core at a phone's width and a laptop's;
// screenshots go to artifacts/screenshots/.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readServerConfig } from "@social/composition";
import { DEFAULT_RATE_LIMIT, MONITOR_LIMITS, newMonitorId, newMonitorSecret } from "@social/core";
import { examples } from "@social/fixtures";
import { openDatabase, SqliteAccounts, SqliteMonitors } from "@social/store-sqlite";
import type { Browser, Page } from "playwright-core";
import { type RunningServer, startServer } from "../src/server.ts";
import { COLOR_SCHEMES, emulateColorScheme, launchChromium, sidewaysOverflow, violations } from "./browser.ts";
import { freePort } from "./harness.ts";
import { startTestProvider, type TestProvider } from "./oidc-provider.ts";
import { curlRequest } from "./pasted-curl.ts";

const SCREENSHOTS = join(import.meta.dir, "..", "..", "..", "artifacts", "screenshots");
let dir: string;
let provider: TestProvider;
let server: RunningServer;
let browser: Browser;
let baseUrl: string;

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  dir = mkdtempSync(join(tmpdir(), "social-dashboard-browser-"));
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  provider = await startTestProvider(`${baseUrl}/dashboard/callback`);
  server = await startServer(
    {
      host: "127.0.0.1",
      port,
      databaseUrl: join(dir, "social.db"),
      rateLimit: { ...DEFAULT_RATE_LIMIT, ratePerSecond: 0 },
      publicUrl: baseUrl,
      billing: readServerConfig({
        BILLING_URL: "https://pay.example/buy?account={account_id}&plan={plan}",
        BILLING_PLANS: '[{"name":"Starter","credits":10000,"price":"$10","note":"Credits never expire"}]',
      }).billing,
      oidc: { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret },
    },
    { log: () => {} },
  );
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await provider?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Saves the page and checks it fits a phone's width: wide tables scroll in their own box, not the page. */
async function screenshot(page: Page, name: string) {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
}

/**
 * The page as it stands, at a phone's width and a laptop's, in light and dark mode: screenshot, no
 * sideways scrolling, no axe violations.
 */
async function check(page: Page, name: string) {
  for (const colorScheme of COLOR_SCHEMES) {
    await emulateColorScheme(page, colorScheme);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 844 });
      const found = { name, colorScheme, width, violations: await violations(page) };
      expect(found).toEqual({ name, colorScheme, width, violations: [] });
    }
  }
  await screenshot(page, name);
}

function getTweet(key: string, id: string = examples.tweet_id) {
  return fetch(`${baseUrl}/v1/tweets/${id}`, { headers: { authorization: `Bearer ${key}` } });
}

/** Signs `username` in through the provider's form, from the page's `link`, and waits for `landing`. */
async function signInAs(page: Page, username: string, landing = "/dashboard", link = "Sign in") {
  await page.getByRole("link", { name: link, exact: true }).click();
  await page.waitForURL(`${provider.issuer}/**`);
  await page.getByLabel("Username").fill(username);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL(`${baseUrl}${landing}`);
}

/** The request log's row for one request id, found with the page's own search. */
async function logRow(page: Page, requestId: string) {
  await page.goto(`${baseUrl}/dashboard/requests`);
  await page.getByLabel("Request id").fill(requestId);
  await page.getByRole("button", { name: "Show" }).click();
  const row = page.locator("#request-log tbody tr");
  expect(await row.count()).toBe(1);
  const cells = await row.first().locator("td").allTextContents();
  return { status: cells[1], meaning: cells[2], endpoint: cells[3], credits: cells[5], requestId: cells[7] };
}

test("from the landing page: sign in, a key, the docs' search, the log, usage, billing, the key's limit, sign-out", async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseUrl });
  const page = await context.newPage();
  // The pages run under their own Content-Security-Policy: anything it blocks is a broken page.
  const blocked: string[] = [];
  page.on("console", (message) => {
    if (message.text().includes("Content Security Policy")) blocked.push(message.text());
  });

  await page.goto(`${baseUrl}/dashboard`);
  await check(page, "01-signed-out");
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
  // The front door: what the product is and costs, and its first step signs in.
  await page.goto(`${baseUrl}/`);
  await check(page, "00-landing");
  await signInAs(page, "ada", "/dashboard", "Sign in to the dashboard");
  expect(await page.locator("#balance").textContent()).toBe("1,000 credits");
  await check(page, "02-dashboard");

  // Keyboard only: type the name and press Enter. The key comes on the page the form leads to, with
  // the focus on it, a copy button and a first search ready to paste.
  await page.getByLabel("Key name").fill("browser test");
  await page.getByLabel("Key name").press("Enter");
  await page.waitForURL(`${baseUrl}/dashboard`);
  const key = (await page.locator("#new-key").textContent()) ?? "";
  expect(key).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
  expect(await page.evaluate(() => document.activeElement?.id)).toBe("new-key-notice");
  const curl = (await page.locator("#first-call").textContent()) ?? "";
  expect(curl).toBe(
    `curl -G -H 'Authorization: Bearer ${key}' --data-urlencode 'query=${examples.search_query}' '${baseUrl}/v1/search/recent'`,
  );
  await page.getByRole("button", { name: "Copy the key" }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
  await check(page, "03-key-created");
  // A reload neither shows the key again nor makes a second one.
  await page.reload();
  expect(await page.locator("#new-key").count()).toBe(0);
  expect(await page.getByRole("row").filter({ hasText: "browser test" }).count()).toBe(1);

  // The first search as the docs show it: their curl line for the search, pasted with the new key.
  await page.goto(`${baseUrl}/docs`);
  expect(await page.getByRole("link", { name: "Dashboard" }).first().getAttribute("href")).toBe("/dashboard");
  await check(page, "11-docs");
  const example = await page.locator("code.curl").filter({ hasText: "/v1/search/recent" }).first().textContent();
  const pasted = curlRequest(example ?? "", key);
  const search = await fetch(pasted.url, { headers: pasted.headers });
  const searched = (await search.json()) as { data: unknown[]; meta: { credits: { charged: number } } };
  expect(search.status).toBe(200);
  expect(searched.data.length).toBeGreaterThan(0);
  const charged = searched.meta.credits.charged;
  const missing = await getTweet(key, "999999999999");
  expect(missing.status).toBe(404);
  const ids = [search, missing].map((response) => response.headers.get("x-request-id") ?? "");
  // The log is written in batches a moment after the answers.
  await Bun.sleep(400);

  expect(await logRow(page, ids[0] as string)).toMatchObject({
    status: "200",
    endpoint: "/v1/search/recent",
    credits: String(charged),
  });
  // At a laptop's width the log takes the window's width and a row stays on one line.
  await page.setViewportSize({ width: 1280, height: 844 });
  const sizes = await page
    .locator("#request-log tbody tr td")
    .first()
    .evaluate((cell) => ({
      height: cell.getBoundingClientRect().height,
      line: Number.parseFloat(getComputedStyle(cell).lineHeight),
    }));
  expect(sizes.height).toBeLessThan(sizes.line * 2);
  await check(page, "04-request-log");
  // The request's own page: the path called, as the docs' example called it.
  await page.getByRole("link", { name: ids[0] as string }).click();
  await page.waitForURL(`${baseUrl}/dashboard/requests/${ids[0]}`);
  expect(await page.locator("#called-path").textContent()).toBe(pasted.url.pathname);
  await check(page, "04-request-page");
  expect(await logRow(page, ids[1] as string)).toMatchObject({
    status: "404",
    meaning: "endpoint_not_found",
    credits: "0",
  });
  await page.goto(`${baseUrl}/dashboard/requests?status=error`);
  expect(await page.locator("#request-log tbody tr").count()).toBe(1);

  // Usage over the days the customer picks, with values on the charts, and the same as CSV.
  await page.getByRole("link", { name: "Usage", exact: true }).click();
  const today = new Date().toISOString().slice(0, 10);
  await page.getByLabel("From (UTC day)").fill(today);
  await page.getByLabel("To (UTC day)").fill(today);
  await page.getByRole("button", { name: "Show" }).click();
  await page.waitForURL(`${baseUrl}/dashboard/usage?from=${today}&to=${today}`);
  expect(await page.locator("#usage-summary").textContent()).toBe(
    `${today} to ${today} (UTC): 1 request, ${charged} credits.`,
  );
  expect(await page.locator("#credits-chart rect").count()).toBe(1);
  expect(await page.locator("#credits-chart text.value").textContent()).toBe(String(charged));
  expect(await page.locator("#usage-by-endpoint tbody tr").first().textContent()).toContain("/v1/search/recent");
  expect(await page.locator("#usage-by-key tbody tr").first().textContent()).toContain("browser test");
  const csvHref = (await page.getByRole("link", { name: "per endpoint" }).getAttribute("href")) ?? "";
  const csv = await context.request.get(`${baseUrl}${csvHref}`);
  expect(csv.headers()["content-disposition"]).toBe(`attachment; filename="usage-${today}-${today}-by-endpoint.csv"`);
  expect(await csv.text()).toBe(`endpoint,requests,credits\r\n/v1/search/recent,1,${charged}\r\n`);
  await check(page, "05-usage");

  // A warning above the balance: every page says so; no request was refused for lack of credits.
  await page.getByRole("link", { name: "Dashboard", exact: true }).click();
  await page.getByLabel("Warn me when the balance is below (credits)").fill("5000");
  await page.getByRole("button", { name: "Save the warning" }).click();
  await page.waitForURL(`${baseUrl}/dashboard`);
  const alert = (await page.locator("#balance-alert").textContent()) ?? "";
  expect(alert).toContain(`${1000 - charged} credits left, below your warning at 5,000 credits`);
  expect(alert).not.toContain("refused");
  await check(page, "06-low-balance");

  // Billing: a Buy button per plan, each naming this account and its plan, and the price per 1,000.
  await page.getByRole("link", { name: "Billing", exact: true }).click();
  expect(await page.locator("#balance-alert").count()).toBe(1);
  const accountId = (await page.locator("#account-id").textContent()) ?? "";
  expect(await page.getByRole("link", { name: "Buy Starter" }).getAttribute("href")).toBe(
    `https://pay.example/buy?account=${accountId}&plan=Starter`,
  );
  expect(await page.locator("#plans").textContent()).toContain("$1.00 per 1,000 credits");
  expect(await page.locator("#grants").textContent()).toContain("sign-up credits");
  await check(page, "07-billing");

  // The key's page: a limit lowered below what the key spent refuses its next call, and that 402
  // sends the customer back to this page.
  await page.getByRole("link", { name: "Dashboard", exact: true }).click();
  await page.getByRole("link", { name: "browser test", exact: true }).click();
  await page.waitForURL(`${baseUrl}/dashboard/keys/**`);
  const keyPage = page.url();
  await check(page, "07-key-page");
  await page.getByLabel("Credit limit", { exact: true }).fill("1");
  await page.getByRole("button", { name: "Save the key" }).click();
  await page.waitForURL(`${baseUrl}/dashboard`);
  const limited = await getTweet(key);
  expect(limited.status).toBe(402);
  const refusal = (await limited.json()) as { error: { help_url: string; details: { reason: string } } };
  expect(refusal.error.details.reason).toBe("key_limit");
  expect(refusal.error.help_url).toBe(keyPage);

  // Revoking asks first, then says it is done.
  await page.getByRole("link", { name: "Dashboard", exact: true }).click();
  await page.setViewportSize({ width: 390, height: 844 });
  const revoke = page.getByRole("link", { name: /^Revoke key browser test/ });
  // On a phone the action is in view without scrolling the table sideways.
  const box = await revoke.boundingBox();
  expect((box?.x ?? 999) + (box?.width ?? 0)).toBeLessThanOrEqual(390);
  await revoke.click();
  await check(page, "08-revoke-question");
  await page.getByRole("button", { name: "Revoke browser test" }).click();
  await page.waitForURL(`${baseUrl}/dashboard`);
  expect(await page.locator("#notice").textContent()).toContain("is revoked");
  await page
    .getByRole("row")
    .filter({ hasText: "browser test" })
    .getByText(/^revoked /)
    .waitFor();
  await check(page, "09-key-revoked");
  const gone = await getTweet(key);
  expect(gone.status).toBe(401);
  expect(((await gone.json()) as { error: { code: string } }).error.code).toBe("revoked_api_key");

  // The pages that say something went wrong, each checked as the others are.
  await page.goto(`${baseUrl}/dashboard/requests?status=418`);
  expect(await page.getByRole("alert").textContent()).toContain("There is no such status.");
  await check(page, "10-bad-filter");
  await page.goto(`${baseUrl}/dashboard`);
  await page.getByLabel("Key name").fill("   ");
  await page.getByRole("button", { name: "Create key" }).click();
  expect(await page.locator("#key-name-error").textContent()).toBe("Give the key a name.");
  await check(page, "10-form-error");
  await page.goto(`${baseUrl}/dashboard/callback?code=stale&state=stale`);
  expect(await page.locator("h1").textContent()).toBe("Sign-in expired");
  await check(page, "10-sign-in-expired");
  await page.goto(`${baseUrl}/dashboard/no-such-page`);
  expect(await page.locator("h1").textContent()).toBe("Page not found");
  await check(page, "10-not-found");

  // Signing out ends the provider's session too: it lands on a page that stays signed out, and a
  // page that needs a sign-in asks the provider for one again rather than being signed straight back in.
  await page.goto(`${baseUrl}/dashboard`);
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(`${provider.issuer}/**`);
  await page.getByRole("button", { name: "Yes, sign me out" }).click();
  await page.waitForURL(`${baseUrl}/dashboard/signed-out`);
  expect(await page.locator("#signed-out").textContent()).toContain("You are signed out.");
  await check(page, "12-signed-out");
  await page.goto(`${baseUrl}/dashboard/usage`);
  await page.waitForURL(`${provider.issuer}/**`);
  await page.getByLabel("Username").waitFor();
  expect(blocked).toEqual([]);

  await context.close();
}, 120_000);

test("sign-in from a page that needs it comes back to that page", async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await page.goto(`${baseUrl}/dashboard/requests?status=402`);
  await page.waitForURL(`${provider.issuer}/**`);
  await page.getByLabel("Username").fill("linus");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL(`${baseUrl}/dashboard/requests?status=402`);
  expect(await page.locator("h1").textContent()).toBe("Requests");
  await context.close();
}, 60_000);

test("a key made with a daily limit and an expiry shows both, and its limit refuses what it cannot cover", async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await page.goto(`${baseUrl}/dashboard`);
  await signInAs(page, "grace");

  await page.getByLabel("Key name").fill("agent");
  await page.getByLabel("Credit limit (optional)").fill("2");
  await page.getByLabel("per").selectOption("day");
  await page.getByLabel("Expires on (optional)").fill("2099-01-31");
  await page.getByRole("button", { name: "Create key" }).click();
  await page.waitForURL(`${baseUrl}/dashboard`);
  const key = (await page.locator("#new-key").textContent()) ?? "";
  expect(key).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
  const row = page.getByRole("row").filter({ hasText: "agent" });
  expect(await row.getByRole("cell").nth(2).textContent()).toBe("2 credits per UTC day, 2 left");
  expect(await row.getByRole("cell").nth(3).textContent()).toBe("2099-01-31 00:00 UTC");
  await screenshot(page, "12-key-with-limit");

  expect((await getTweet(key)).status).toBe(200);
  expect((await getTweet(key)).status).toBe(200);
  const refused = await getTweet(key);
  expect(refused.status).toBe(402);
  expect(((await refused.json()) as { error: { details: unknown } }).error.details).toEqual({
    reason: "key_limit",
    required: 1,
    remaining: 0,
    limit: { credits: 2, per: "day" },
  });
  // The log names the key's limit apart from a balance run out.
  await Bun.sleep(400);
  expect(await logRow(page, refused.headers.get("x-request-id") ?? "")).toMatchObject({
    status: "402",
    meaning: "insufficient_credits: key limit",
  });
  await page.goto(`${baseUrl}/dashboard`);
  expect(await row.getByRole("cell").nth(2).textContent()).toBe("2 credits per UTC day, 0 left");

  await page.getByLabel("Key name").fill("bad");
  await page.getByLabel("Credit limit (optional)").fill("2");
  await page.getByLabel("Expires on (optional)").fill("2001-01-01");
  await page.getByRole("button", { name: "Create key" }).click();
  expect(await page.getByRole("alert").textContent()).toContain("has already passed");
  await context.close();
}, 60_000);

test("the monitors: one created through the form, the list with a held one, pausing and deleting one", async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await page.goto(`${baseUrl}/dashboard`);
  await signInAs(page, "hopper");
  await page.getByRole("link", { name: "Monitors", exact: true }).click();
  await page.waitForURL(`${baseUrl}/dashboard/monitors`);
  await page.locator("#no-monitors").waitFor();
  await check(page, "13-monitors-none");

  await page.getByRole("link", { name: "Dashboard", exact: true }).click();
  await page.getByLabel("Key name").fill("monitors");
  await page.getByLabel("Key name").press("Enter");
  await page.waitForURL(`${baseUrl}/dashboard`);

  // One through the form: a webhook monitor, its signing secret shown once on its page.
  await page.getByRole("link", { name: "Monitors", exact: true }).click();
  await page.waitForURL(`${baseUrl}/dashboard/monitors`);
  await check(page, "13-monitors-create");
  await page.getByLabel("Query", { exact: true }).fill("#coffee lang:en");
  await page.getByLabel("Name (optional)").fill("from the form");
  await page.getByLabel("Webhook: we POST its matches to the URL below").check();
  await page.getByLabel("Webhook URL").fill("https://hooks.example.com/coffee");
  await page.getByLabel("Daily credit cap (optional)").fill("100");
  await page.getByRole("button", { name: "Create the monitor" }).click();
  await page.waitForURL(`${baseUrl}/dashboard/monitors/mon_*`);
  expect(await page.locator("#notice").textContent()).toBe("The monitor “from the form” is created.");
  expect(await page.locator("#new-secret").textContent()).toStartWith("whsec_");
  await check(page, "13-monitor-created");
  await page.getByRole("link", { name: "All monitors" }).click();
  await page.waitForURL(`${baseUrl}/dashboard/monitors`);
  expect(await page.getByRole("row").filter({ hasText: "from the form" }).textContent()).toContain(
    "webhook https://hooks.example.com/coffee",
  );

  // Others as the API would make them: here through the server's own database.
  const db = openDatabase(join(dir, "social.db"));
  const keys = await new SqliteAccounts(db).listKeys();
  const key = keys.find((each) => each.name === "monitors");
  const monitors = new SqliteMonitors(db);
  const made = [];
  for (const [name, url] of [
    ["coffee news", "https://hooks.example.com/a-rather-long/path/that-must-wrap/on-a-phone?token=abcdef0123456789"],
    ["pull feed", undefined],
  ] as const) {
    const created = await monitors.create(
      {
        id: newMonitorId(),
        accountId: key?.accountId ?? "",
        keyId: key?.id ?? "",
        name,
        query: "#coffee lang:en",
        delivery: url ? { type: "webhook", url } : { type: "pull" },
        dailyCreditCap: 200,
        secret: newMonitorSecret(),
        now: Date.now(),
      },
      MONITOR_LIMITS.perAccount,
    );
    if (created.ok) made.push(created.monitor);
  }
  await monitors.setHold(made[0]?.id ?? "", {
    reason: "insufficient_credits",
    message: "The account's balance cannot pay for a delivered post; deliveries resume when credits arrive.",
    since: Date.now(),
  });
  db.close();

  await page.goto(`${baseUrl}/dashboard/monitors`);
  expect(await page.locator("#monitors tbody tr").count()).toBe(3);
  expect(await page.getByRole("row").filter({ hasText: "coffee news" }).textContent()).toContain(
    "held: not enough credits",
  );
  await check(page, "13-monitors");
  await page.getByRole("link", { name: "coffee news", exact: true }).click();
  await page.waitForURL(`${baseUrl}/dashboard/monitors/${made[0]?.id}`);
  await check(page, "13-monitor");
  await page.getByRole("button", { name: "Pause this monitor" }).click();
  await page.waitForURL(`${baseUrl}/dashboard/monitors/${made[0]?.id}`);
  expect(await page.locator("#notice").textContent()).toContain("is paused");
  expect(await page.locator("#monitor-status").textContent()).toBe("paused by you");
  await check(page, "13-monitor-paused");
  await page.getByRole("link", { name: "Delete this monitor…" }).click();
  await page.waitForURL(`${baseUrl}/dashboard/monitors/${made[0]?.id}/delete`);
  await check(page, "13-monitor-delete");
  await page.getByRole("button", { name: "Delete coffee news" }).click();
  await page.waitForURL(`${baseUrl}/dashboard/monitors`);
  expect(await page.locator("#notice").textContent()).toContain("is deleted");
  expect(await page.locator("#monitors tbody tr").count()).toBe(2);
  await context.close();
}, 60_000);
