// The pages a visitor reads without signing in (the landing page, the docs and the demo) in headless
// Chromium, as a light-mode and a dark-mode visitor sees them, at a phone's width and a laptop's: the
// scheme is followed, axe-core finds no violation, and nothing scrolls sideways.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { readServerConfig } from "@social/composition";
import type { Browser } from "playwright-core";
import { COLOR_SCHEMES, emulateColorScheme, launchChromium, sidewaysOverflow, violations } from "./browser.ts";
import { startTestServer, type TestServer } from "./harness.ts";

const PAGES = ["/", "/docs", "/demo", "/demo?run=search"];
const WIDTHS = [390, 1280];

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  const billing = readServerConfig({
    BILLING_PLANS: JSON.stringify([
      { name: "Starter", credits: 10_000, price: "$10", note: "Credits never expire" },
      { name: "Scale", credits: 1_000_000, price: "$500" },
    ]),
  }).billing;
  [server, browser] = await Promise.all([startTestServer(billing ? { billing } : {}), launchChromium()]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** The relative luminance of a computed `rgb(…)` colour, 0 for black to 1 for white (WCAG 2.1). */
function luminance(color: string): number {
  const [r = 0, g = 0, b = 0] = (color.match(/\d+(\.\d+)?/g) ?? []).map((part) => {
    const c = Number(part) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

describe.each(COLOR_SCHEMES)("in %s mode", (scheme) => {
  it.each(PAGES)(
    "%s follows the scheme, passes axe and fits a phone and a laptop",
    async (path) => {
      const page = await browser.newPage();
      try {
        await emulateColorScheme(page, scheme);
        const response = await page.goto(`${server.url}${path}`);
        expect(response?.status()).toBe(200);
        const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
        // A page that ignores the scheme keeps a white (or transparent, so white) background in dark mode.
        expect({
          path,
          scheme,
          dark: luminance(background) < 0.2 && !background.startsWith("rgba(0, 0, 0, 0)"),
        }).toEqual({ path, scheme, dark: scheme === "dark" });
        for (const width of WIDTHS) {
          await page.setViewportSize({ width, height: 844 });
          expect({ path, scheme, width, violations: await violations(page) }).toEqual({
            path,
            scheme,
            width,
            violations: [],
          });
          expect({ path, scheme, width, overflow: await sidewaysOverflow(page) }).toEqual({
            path,
            scheme,
            width,
            overflow: 0,
          });
        }
      } finally {
        await page.close();
      }
    },
    60_000,
  );
});
