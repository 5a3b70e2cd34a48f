// The monitors' pages and forms: the list and the form that creates one, one monitor's page with its
// pause or resume and its change, and deleting one after a page that asks. Creating, changing and
// deleting go through core's monitor rules (manage.ts) with the API's settings, so a form is refused
// exactly as the API would refuse the same fields, with the API's message. A monitor of another account
// is answered as one that does not exist. Managing monitors is free: nothing here charges.
import {
  ApiError,
  createMonitor,
  deleteMonitor,
  type Monitor,
  type MonitorSettingsOptions,
  type MonitorView,
  updateMonitor,
} from "@social/core";
import { Elysia } from "elysia";
import type { HttpContext } from "../http/context.ts";
import { htmlResponse } from "./html.ts";
import {
  changesBody,
  createBody,
  fieldOfParameter,
  type MonitorRefusal,
  payingKeys,
  typedMonitorForm,
} from "./monitor-form.ts";
import { deleteMonitorPage, monitorPage, monitorPagePath, monitorsPage, type RefusedForm } from "./monitors-page.ts";
import { errorPage } from "./pages.ts";
import type { DashboardSite, SignedIn } from "./site.ts";

const NOT_A_PAYING_KEY: MonitorRefusal = {
  message: "Choose one of your active keys: the monitor's deliveries are charged to it.",
  field: "key",
};

/** Core's refusal of what was typed, as the form shows it; any other failure is not the form's. */
function refusalOf(error: unknown): { refusal: MonitorRefusal; status: number } {
  if (!(error instanceof ApiError && error.code === "invalid_request")) throw error;
  const field = fieldOfParameter(error.details?.[0]?.parameter);
  return { refusal: { message: error.message, ...(field ? { field } : {}) }, status: error.status };
}

/** Whether core found no such monitor: deleted since the page checked it. */
function vanished(error: unknown): boolean {
  return error instanceof ApiError && error.code === "endpoint_not_found";
}

/** The signing secret to show once: a webhook monitor's, when it was not one before. */
function secretToShow(view: MonitorView, before: Monitor | undefined) {
  if (view.secret === undefined || before?.delivery.type === "webhook") return {};
  return { newSecret: { monitorId: view.id, secret: view.secret } };
}

export function monitorRoutes(context: HttpContext, site: DashboardSite, settings: MonitorSettingsOptions) {
  const { monitors } = site.options;

  const noSuchMonitor = (who: SignedIn) =>
    htmlResponse(errorPage("No such monitor", "You have no monitor with that id.", who.viewer), 404);

  const ownMonitorOf = async (who: SignedIn, id: string) =>
    (await monitors.get(who.accountId, id)) ?? noSuchMonitor(who);

  /** The list, with the create form as it was refused, or fresh with what the last form did. */
  const listPage = async (request: Request, who: SignedIn, refused?: RefusedForm, status = 200) => {
    const now = Date.now();
    const [list, keys, { flash, headers }] = await Promise.all([
      monitors.list(who.accountId),
      site.accounts.listKeys(who.accountId),
      refused ? { flash: undefined, headers: {} } : site.takeFlash(request, who),
    ]);
    const notice = flash?.notice;
    const page = monitorsPage({
      viewer: who.viewer,
      monitors: list,
      now,
      keys: payingKeys(keys, now),
      ...(notice ? { notice } : {}),
      ...(refused ? { refused } : {}),
    });
    return htmlResponse(page, status, headers);
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
      return listPage(request, who);
    })
    .post("/dashboard/monitors", async ({ request, body }) => {
      const who = await site.formPoster(request, body);
      if (who instanceof Response) return who;
      const form = typedMonitorForm(body);
      const now = Date.now();
      const keys = payingKeys(await site.accounts.listKeys(who.accountId), now);
      if (!keys.some((key) => key.id === form.keyId))
        return listPage(request, who, { refusal: NOT_A_PAYING_KEY, form }, 400);
      const owner = { accountId: who.accountId, keyId: form.keyId };
      const created = await createMonitor(monitors, owner, createBody(form), settings, now).catch(refusalOf);
      if ("refusal" in created) return listPage(request, who, { refusal: created.refusal, form }, created.status);
      return site.done(
        who,
        { notice: `The monitor “${created.name ?? created.id}” is created.`, ...secretToShow(created, undefined) },
        monitorPagePath(created.id),
      );
    })
    .get("/dashboard/monitors/:id", async ({ request, params }) => {
      const who = await site.signedIn(request);
      if (!who) return site.signInFirst(request);
      const monitor = await ownMonitorOf(who, params.id);
      if (monitor instanceof Response) return monitor;
      const { flash, headers } = await site.takeFlash(request, who);
      const notice = flash?.notice;
      // A secret sealed for another monitor's page is not shown here.
      const secret = flash?.newSecret?.monitorId === monitor.id ? flash.newSecret.secret : undefined;
      return htmlResponse(
        monitorPage({
          viewer: who.viewer,
          monitor,
          now: Date.now(),
          ...(notice ? { notice } : {}),
          ...(secret ? { newSecret: secret } : {}),
        }),
        200,
        headers,
      );
    })
    .post("/dashboard/monitors/:id", async ({ request, body, params }) => {
      const who = await site.formPoster(request, body);
      if (who instanceof Response) return who;
      const monitor = await ownMonitorOf(who, params.id);
      if (monitor instanceof Response) return monitor;
      const form = typedMonitorForm(body);
      const changes = changesBody(form, monitor);
      const name = (view: { name?: string | null; id: string }) => view.name ?? view.id;
      if (Object.keys(changes).length === 0) {
        return site.done(
          who,
          { notice: `Nothing to save: the monitor “${name(monitor)}” is as it was.` },
          monitorPagePath(monitor.id),
        );
      }
      const now = Date.now();
      const changed = await updateMonitor(monitors, who.accountId, monitor.id, changes, settings, now).catch((error) =>
        vanished(error) ? undefined : refusalOf(error),
      );
      if (!changed) return noSuchMonitor(who);
      if ("refusal" in changed) {
        const page = monitorPage({ viewer: who.viewer, monitor, now, refused: { refusal: changed.refusal, form } });
        return htmlResponse(page, changed.status);
      }
      return site.done(
        who,
        { notice: `The monitor “${name(changed)}” is saved.`, ...secretToShow(changed, monitor) },
        monitorPagePath(changed.id),
      );
    })
    .get("/dashboard/monitors/:id/delete", async ({ request, params }) => {
      const who = await site.signedIn(request);
      if (!who) return site.signInFirst(request);
      const monitor = await ownMonitorOf(who, params.id);
      return monitor instanceof Response ? monitor : htmlResponse(deleteMonitorPage(who.viewer, monitor));
    })
    .post("/dashboard/monitors/:id/delete", async ({ request, body, params }) => {
      const who = await site.formPoster(request, body);
      if (who instanceof Response) return who;
      const monitor = await ownMonitorOf(who, params.id);
      if (monitor instanceof Response) return monitor;
      const deleted = await deleteMonitor(monitors, who.accountId, monitor.id).catch((error) => {
        if (vanished(error)) return undefined;
        throw error;
      });
      if (!deleted) return noSuchMonitor(who);
      const notice = `The monitor “${monitor.name ?? monitor.id}” is deleted, with its matches.`;
      return site.done(who, { notice }, "/dashboard/monitors");
    })
    .post("/dashboard/monitors/:id/pause", setStatus("paused"))
    .post("/dashboard/monitors/:id/resume", setStatus("active"));
}
