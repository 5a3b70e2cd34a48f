// The pages that report on an account: its usage, its request log, and billing (which a visitor sees
// too, with the prices and how to buy).
import { DAY_MS } from "@social/composition";
import { ApiError, requestTarget, usageReportOf } from "@social/core";
import { Elysia } from "elysia";
import { usageCsv, usageFileName } from "../account/usage-csv.ts";
import type { HttpContext } from "../http/context.ts";
import { billingPage } from "./billing-page.ts";
import { htmlResponse, SECURITY_HEADERS, type Viewer } from "./html.ts";
import { errorPage, signInHref } from "./pages.ts";
import { logFilters, logQuery, requestDetailPage, requestsOffPage, requestsPage } from "./requests-page.ts";
import type { DashboardSite } from "./site.ts";
import { USAGE_DAYS, usagePage } from "./usage-page.ts";

/** The range of days a usage page or its CSV asks for; absent: the last 30. */
function rangeOf(request: Request): { from?: string; to?: string } {
  const query = requestTarget(request.url).query;
  const from = query.get("from") || undefined;
  const to = query.get("to") || undefined;
  return { ...(from ? { from } : {}), ...(to ? { to } : {}) };
}

/** A range /v1/usage would refuse, as a page saying why; anything else is not ours to answer here. */
function refusedRange(error: unknown, viewer: Viewer): Response {
  if (!(error instanceof ApiError && error.code === "invalid_request")) throw error;
  const said = error.details?.map((detail) => `${detail.parameter} ${detail.message}`).join("; ") ?? error.message;
  return htmlResponse(errorPage("No such days", `These days cannot be shown: ${said}.`, viewer), 400);
}

/** Grants the billing page lists, newest first. */
const GRANTS_SHOWN = 50;

export function reportRoutes(context: HttpContext, site: DashboardSite) {
  const { accounts, options } = site;
  return new Elysia({ name: "dashboard-reports" })
    .use(context)
    .get("/dashboard/usage", async ({ request }) => {
      const who = await site.signedIn(request);
      if (!who) return site.signInFirst(request);
      const range = rangeOf(request);
      const now = Date.now();
      try {
        const [byDay, byEndpoint, byKey, keys] = await Promise.all([
          usageReportOf(accounts, who.accountId, { ...range, group_by: "day" }, now),
          usageReportOf(accounts, who.accountId, { ...range, group_by: "endpoint" }, now),
          usageReportOf(accounts, who.accountId, { ...range, group_by: "key" }, now),
          accounts.listKeys(who.accountId),
        ]);
        return htmlResponse(usagePage({ viewer: who.viewer, byDay, byEndpoint, byKey, keys }));
      } catch (error) {
        return refusedRange(error, who.viewer);
      }
    })
    .get("/dashboard/usage.csv", async ({ request }) => {
      const who = await site.signedIn(request);
      if (!who) return site.signInFirst(request);
      const groupBy = requestTarget(request.url).query.get("group_by") ?? "day";
      if (groupBy !== "day" && groupBy !== "endpoint" && groupBy !== "key") {
        return htmlResponse(errorPage("No such usage", "Usage is grouped by day, endpoint or key.", who.viewer), 400);
      }
      try {
        const report = await usageReportOf(
          accounts,
          who.accountId,
          { ...rangeOf(request), group_by: groupBy },
          Date.now(),
        );
        return new Response(usageCsv(report), {
          headers: {
            "content-type": "text/csv; charset=utf-8",
            "content-disposition": `attachment; filename="${usageFileName(report)}"`,
            "cache-control": "no-store",
            ...SECURITY_HEADERS,
          },
        });
      } catch (error) {
        return refusedRange(error, who.viewer);
      }
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
    .get("/dashboard/requests/:requestId", async ({ request, params }) => {
      const who = await site.signedIn(request);
      if (!who) return site.signInFirst(request);
      if (options.requestLogDays === 0) return htmlResponse(requestsOffPage(who.viewer));
      const notFound = () =>
        htmlResponse(errorPage("No such request", "No request of yours has that id in the log.", who.viewer), 404);
      const found = logFilters(new URLSearchParams({ id: params.requestId }), []);
      if ("error" in found) return notFound();
      const since = Date.now() - options.requestLogDays * DAY_MS;
      const { entries } = await accounts.requestLog(who.accountId, { ...logQuery(found, since), limit: 1 });
      const entry = entries[0];
      if (!entry) return notFound();
      return htmlResponse(requestDetailPage(who.viewer, entry, await accounts.key(entry.keyId)));
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
