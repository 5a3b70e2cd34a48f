// Headless Chromium for the browser tests: Debian's chromium driven by playwright-core, axe-core run
// inside the page, and the visitor's colour scheme emulated, so every page is checked as a light-mode
// and a dark-mode visitor sees it.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";

// Debian's chromium, driven without a sandbox (CI runs as root) and without any network of its own.
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
}

export type ColorScheme = "light" | "dark";
export const COLOR_SCHEMES: readonly ColorScheme[] = ["light", "dark"];

/** Answers the page's `prefers-color-scheme` queries as a visitor with that preference would. */
export function emulateColorScheme(page: Page, colorScheme: ColorScheme): Promise<void> {
  return page.emulateMedia({ colorScheme });
}

const AXE_SOURCE = readFileSync(fileURLToPath(import.meta.resolve("axe-core/axe.min.js")), "utf8");

interface AxeResults {
  violations: { id: string; nodes: { target: string[] }[] }[];
}

/** What axe-core finds against WCAG 2.1 A and AA and its best practices, as rule ids and where. */
export async function violations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<AxeResults> } }).axe;
    const results = await axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] },
    });
    return results.violations.map((v) => `${v.id}: ${v.nodes.map((node) => node.target.join(" ")).join(", ")}`);
  });
}

/** How far the page scrolls sideways at its viewport's width: 0 when everything fits. */
export function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}
