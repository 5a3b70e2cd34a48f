// The dashboard's HTTP surface: sign-in through OpenID Connect (sign-in-routes.ts), the account's own
// page and its forms (form-routes.ts), the pages that report on it (report-routes.ts) and its monitors
// (monitor-routes.ts), over what they share (site.ts).

import { type MonitorSettingsOptions, requestPath } from "@social/core";
import { Elysia } from "elysia";
import type { HttpContext } from "../http/context.ts";
import { COPY_SCRIPT, COPY_SCRIPT_PATH } from "./copy.ts";
import { formRoutes } from "./form-routes.ts";
import { htmlResponse } from "./html.ts";
import { monitorRoutes } from "./monitor-routes.ts";
import { notFoundPage, visitorPage } from "./pages.ts";
import { reportRoutes } from "./report-routes.ts";
import { signInRoutes } from "./sign-in-routes.ts";
import { type DashboardOptions, DashboardSite } from "./site.ts";
import { STYLESHEET } from "./style.ts";

export type { DashboardOptions } from "./site.ts";

/**
 * The pages; without their options (an app that serves the API alone), none. `monitorSettings` are the
 * API's own, so that a monitor made here is held to what the API would allow.
 */
export function dashboardRoutes(
  context: HttpContext,
  options: DashboardOptions | undefined,
  monitorSettings: MonitorSettingsOptions,
) {
  const routes = new Elysia({ name: "dashboard" }).use(context);
  if (!options) return routes;
  const site = new DashboardSite(options);
  return routes
    .get(
      "/dashboard/style.css",
      () =>
        new Response(STYLESHEET, {
          headers: {
            "content-type": "text/css; charset=utf-8",
            "cache-control": "public, max-age=3600",
            "x-content-type-options": "nosniff",
          },
        }),
    )
    .get(
      COPY_SCRIPT_PATH,
      () =>
        new Response(COPY_SCRIPT, {
          headers: {
            "content-type": "text/javascript; charset=utf-8",
            "cache-control": "public, max-age=3600",
            "x-content-type-options": "nosniff",
          },
        }),
    )
    .get("/dashboard", async ({ request }) => {
      const who = await site.signedIn(request);
      if (!who) return htmlResponse(visitorPage({ configured: site.oidc !== undefined, publicUrl: options.publicUrl }));
      return site.home(request, who);
    })
    .use(signInRoutes(context, site))
    .use(formRoutes(context, site))
    .use(reportRoutes(context, site))
    .use(monitorRoutes(context, site, monitorSettings))
    .all("/dashboard/*", async ({ request }) => {
      const who = await site.signedIn(request);
      return htmlResponse(notFoundPage(requestPath(request.url), who?.viewer), 404);
    });
}
