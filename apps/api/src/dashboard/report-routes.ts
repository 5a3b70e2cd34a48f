// The pages that report on an account: its usage, its request log, and billing (which a visitor sees
// too, with the prices and how to buy).
import { DAY_MS } from "@social/composition";
import { requestTarget } from "@social/core";
import { Elysia } from "elysia";
import type { HttpContext } from "../http/context.ts";
import { billingPage } from "./billing-page.ts";
import { htmlResponse } from "./html.ts";
import { errorPage, signInHref } from "./pages.ts";
import { logFilters, logQuery, requestsOffPage, requestsPage } from "./requests-page.ts";
import type { DashboardSite } from "./site.ts";
import { USAGE_DAYS, usagePage } from "./usage-page.ts";

/** Grants the billing page lists, newest first. */
const GRANTS_SHOWN = 50;

export function reportRoutes(context: HttpContext, site: DashboardSite) {
  const { accounts, options } = site;
  return new Elysia({ name: "dashboard-reports" })
    .use(context)
    .get("/dashboard/usage", async ({ request }) => {
      const who = await site.signedIn(request);
      if (!who) return site.signInFirst(request);
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
      const who = await site.signedIn(request);
      if (!who) return site.signInFirst(request);
      if (options.requestLogDays === 0) return htmlResponse(requestsOffPage(who.viewer));
      const keys = await accounts.listKeys(who.accountId);
      const filters = logFilters(requestTarget(request.url).query, keys);
      if ("error" in filters) return htmlResponse(errorPage("No such requests", filters.error, who.viewer), 400);
      const since = Date.now() - options.requestLogDays * DAY_MS;
      const page = await accounts.requestLog(who.accountId, logQuery(filters, since));
      return htmlResponse(requestsPage({ viewer: who.viewer, keys, filters, page, days: options.requestLogDays }));
    })
    .get("/billing", async ({ request }) => {
      const who = await site.signedIn(request);
      const account = who && (await accounts.account(who.accountId));
      if (!who || !account) {
        return htmlResponse(
          billingPage({ settings: options.billing, ...(site.oidc ? { signIn: signInHref("/billing") } : {}) }),
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
    });
}
