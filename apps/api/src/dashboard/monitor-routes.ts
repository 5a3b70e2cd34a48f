// The monitors' pages: the list, one monitor's page, and its pause and resume forms. A monitor of
// another account is answered as one that does not exist.
import { Elysia } from "elysia";
import type { HttpContext } from "../http/context.ts";
import { htmlResponse } from "./html.ts";
import { monitorPage, monitorPagePath, monitorsPage } from "./monitors-page.ts";
import { errorPage } from "./pages.ts";
import type { DashboardSite, SignedIn } from "./site.ts";

export function monitorRoutes(context: HttpContext, site: DashboardSite) {
  const { monitors } = site.options;

  const ownMonitorOf = async (who: SignedIn, id: string) => {
    const monitor = await monitors.get(who.accountId, id);
    return monitor ?? htmlResponse(errorPage("No such monitor", "You have no monitor with that id.", who.viewer), 404);
  };

  /** Pauses or resumes the monitor, then shows its page saying so. */
  const setStatus =
    (status: "active" | "paused") =>
    async ({ request, body, params }: { request: Request; body: unknown; params: { id: string } }) => {
      const who = await site.formPoster(request, body);
      if (who instanceof Response) return who;
      const monitor = await ownMonitorOf(who, params.id);
      if (monitor instanceof Response) return monitor;
      const changed = await monitors.update(who.accountId, monitor.id, { status }, Date.now());
      if (!changed) return ownMonitorOf(who, params.id);
      const name = changed.name ?? changed.id;
      const notice =
        status === "paused"
          ? `The monitor “${name}” is paused: it matches and delivers nothing until you resume it.`
          : `The monitor “${name}” is active again: what is waiting is delivered.`;
      return site.done(who, { notice }, monitorPagePath(changed.id));
    };

  return new Elysia({ name: "dashboard-monitors" })
    .use(context)
    .get("/dashboard/monitors", async ({ request }) => {
      const who = await site.signedIn(request);
      if (!who) return site.signInFirst(request);
      const list = await monitors.list(who.accountId);
      return htmlResponse(monitorsPage({ viewer: who.viewer, monitors: list, now: Date.now() }));
    })
    .get("/dashboard/monitors/:id", async ({ request, params }) => {
      const who = await site.signedIn(request);
      if (!who) return site.signInFirst(request);
      const monitor = await ownMonitorOf(who, params.id);
      if (monitor instanceof Response) return monitor;
      const { flash, headers } = await site.takeFlash(request, who);
      const notice = flash?.notice;
      return htmlResponse(
        monitorPage({ viewer: who.viewer, monitor, now: Date.now(), ...(notice ? { notice } : {}) }),
        200,
        headers,
      );
    })
    .post("/dashboard/monitors/:id/pause", setStatus("paused"))
    .post("/dashboard/monitors/:id/resume", setStatus("active"));
}
