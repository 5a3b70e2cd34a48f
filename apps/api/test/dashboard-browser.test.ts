// The whole path a new customer takes, in headless Chromium against a real OpenID Provider on loopback:
// sign in, see the 1000 sign-up credits, create a key, call the API with it, see the usage and the new
// balance, revoke the key, and see the API refuse it. Screenshots of each page go to artifacts/screenshots/.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_RATE_LIMIT } from "@social/core";
import { examples } from "@social/fixtures";
import { type Browser, chromium, type Page } from "playwright-core";
import { type RunningServer, startServer } from "../src/server.ts";
import { freePort } from "./harness.ts";
import { startTestProvider, type TestProvider } from "./oidc-provider.ts";

const SCREENSHOTS = join(import.meta.dir, "..", "..", "..", "artifacts", "screenshots");
// Debian's chromium, driven without a sandbox (CI runs as root) and without any network of its own.
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

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
      oidc: { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret },
    },
    { log: () => {} },
  );
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
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
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

function getTweet(key: string) {
  return fetch(`${baseUrl}/v1/tweets/${examples.tweet_id}`, { headers: { authorization: `Bearer ${key}` } });
}

/** Signs `username` in through the provider's form and waits for the dashboard. */
async function signInAs(page: Page, username: string) {
  await page.getByRole("link", { name: "Sign in", exact: true }).click();
  await page.waitForURL(`${provider.issuer}/**`);
  await page.getByLabel("Username").fill(username);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL(`${baseUrl}/dashboard`);
}

test("a new user signs in, makes a key, uses it, sees the usage and revokes it", async () => {
  // A phone-sized viewport: the pages must work there without horizontal scrolling of the layout.
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();

  await page.goto(`${baseUrl}/dashboard`);
  await screenshot(page, "01-signed-out");
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
  await signInAs(page, "ada");
  expect(await page.locator("#balance").textContent()).toBe("1,000 credits");
  await screenshot(page, "02-dashboard");

  // Keyboard only: type the name and press Enter.
  await page.getByLabel("Key name").fill("browser test");
  await page.getByLabel("Key name").press("Enter");
  const key = (await page.locator("#new-key").textContent()) ?? "";
  expect(key).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
  await screenshot(page, "03-key-created");

  const used = await getTweet(key);
  expect(used.status).toBe(200);
  const body = (await used.json()) as {
    data: { id: string };
    meta: { credits: { charged: number; remaining: number } };
  };
  expect(body.data.id).toBe(examples.tweet_id);
  expect(body.meta.credits).toEqual({ charged: 1, remaining: 999 });

  await page.goto(`${baseUrl}/dashboard`);
  expect(await page.locator("#balance").textContent()).toBe("999 credits");
  expect(await page.locator("#new-key").count()).toBe(0);
  const row = page.getByRole("row").filter({ hasText: "browser test" });
  expect(await row.getByRole("cell").nth(3).textContent()).toMatch(/UTC$/);

  await page.getByRole("link", { name: "Usage", exact: true }).click();
  expect(await page.locator("#usage-summary").textContent()).toBe("Last 30 days: 1 request, 1 credit.");
  const latest = page.locator("#latest-requests tbody tr");
  expect(await latest.count()).toBe(1);
  expect(await latest.first().textContent()).toContain("/v1/tweets/{id}");
  expect(await page.locator("#credits-chart rect").count()).toBe(30);
  await screenshot(page, "04-usage");

  await page.getByRole("link", { name: "Billing", exact: true }).click();
  expect(await page.locator("#account-id").textContent()).toMatch(/^acct_/);
  await screenshot(page, "05-billing");

  await page.getByRole("link", { name: "Dashboard", exact: true }).click();
  await row.getByRole("button", { name: /^Revoke key browser test/ }).click();
  // The page reloads at the same URL: wait for what only the new page shows.
  await row.getByText(/^revoked /).waitFor();
  await screenshot(page, "06-key-revoked");

  const refused = await getTweet(key);
  expect(refused.status).toBe(401);
  expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("revoked_api_key");

  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByRole("link", { name: "Sign in", exact: true }).waitFor();
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
  const key = (await page.locator("#new-key").textContent()) ?? "";
  expect(key).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
  const row = page.getByRole("row").filter({ hasText: "agent" });
  expect(await row.getByRole("cell").nth(4).textContent()).toBe("2 credits per UTC day, 2 left");
  expect(await row.getByRole("cell").nth(5).textContent()).toBe("2099-01-31 00:00 UTC");
  await screenshot(page, "07-key-with-limit");

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
  await page.reload();
  expect(await row.getByRole("cell").nth(4).textContent()).toBe("2 credits per UTC day, 0 left");

  await page.getByLabel("Key name").fill("bad");
  await page.getByLabel("Credit limit (optional)").fill("2");
  await page.getByLabel("Expires on (optional)").fill("2001-01-01");
  await page.getByRole("button", { name: "Create key" }).click();
  expect(await page.getByRole("alert").textContent()).toContain("has already passed");
  await context.close();
}, 60_000);
