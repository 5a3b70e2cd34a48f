// The dashboard's monitors in-process against a real OpenID Provider: the list shows each monitor's
// query, delivery, status with the reason and message of a hold or a pause, a failing webhook's run,
// its matches and what was charged; a monitor's page pauses and resumes it behind the session's CSRF
// token; another account's monitor is not found. Monitor charges (webhook, poll, stream) are in the
// request log and usage under readable names, found by the endpoint filter and by their ids. The forms
// that create, change and delete monitors: dashboard-monitor-forms.test.ts.
import { describe, expect, test } from "bun:test";
import { chargeDelivery, type Monitor } from "@social/core";
import { type Customer, setCookie, signIn, testDashboards } from "./dashboard-harness.ts";
import { monitorOf, rowOf } from "./dashboard-monitor-fixtures.ts";

const dashboards = testDashboards();

describe("the monitors pages", () => {
  test("list every monitor with where it stands, a hold's message and a failing webhook's run", async () => {
    const you = await dashboards.customer();
    const empty = await you.page("/dashboard/monitors");
    expect(empty.status).toBe(200);
    expect(empty.text).toContain('id="no-monitors"');
    expect(empty.text).toContain('<a href="/docs#monitors">the docs</a>');
    expect(empty.text).toContain('<a href="/dashboard/monitors" aria-current="page">Monitors</a>');

    const quiet = await monitorOf(you, "quiet");
    const failing = await monitorOf(you, "failing");
    await you.dashboard.monitors.recordMatches(
      [],
      ["1", "2", "3"].map((tweetId) => ({ monitorId: failing.id, tweetId })),
      Date.now(),
    );
    const [claimed] = await you.dashboard.monitors.claimWebhooks("test", Date.now(), 60_000, 1);
    expect(claimed?.id).toBe(failing.id);
    await you.dashboard.monitors.setHold(failing.id, {
      reason: "webhook_failing",
      message: "The webhook is failing: it is retried.",
      since: Date.now(),
    });
    await you.dashboard.monitors.finishWebhook(failing.id, "test", {
      outcome: "failed",
      error: "The receiver answered HTTP 500: <b>down</b>",
      nextAttemptAt: Date.now() + 10_000,
    });

    const page = (await you.page("/dashboard/monitors")).text;
    expect(rowOf(page, "quiet")).toBe(
      "quiet #coffee lang:en webhook https://hooks.example/in active — 0 0 0 of 500 credits",
    );
    const row = rowOf(page, "failing");
    expect(row).toStartWith(
      "failing #coffee lang:en webhook https://hooks.example/in held: webhook failing The webhook is failing: it is retried.",
    );
    expect(row).toContain("1 attempt, next");
    expect(row).toEndWith("The receiver answered HTTP 500: &#60;b&#62;down&#60;/b&#62; 3 0 0 of 500 credits");
    expect(page).toContain(`href="/dashboard/monitors/${quiet.id}"`);
  });

  test("a monitor's page pauses and resumes it, saying so once", async () => {
    const you = await dashboards.customer();
    const monitor = await monitorOf(you, "news");
    const path = `/dashboard/monitors/${monitor.id}`;
    const shown = await you.page(path);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('<dd id="monitor-status">active</dd>');
    expect(shown.text).toContain(`action="${path}/pause"`);

    const paused = await you.post(`${path}/pause`, {});
    expect(paused.status).toBe(303);
    expect(paused.headers.get("location")).toBe(path);
    expect((await you.dashboard.monitors.get(you.accountId, monitor.id))?.status).toBe("paused");
    const flash = setCookie(paused, "social_flash")?.pair ?? "";
    const after = await you.dashboard.request(path, { cookie: `${you.cookie}; ${flash}` });
    expect(setCookie(after, "social_flash")?.attributes).toContain("Max-Age=0");
    const afterText = await after.text();
    expect(afterText).toContain("The monitor “news” is paused");
    expect(afterText).toContain('<dd id="monitor-status">paused by you</dd>');
    expect(afterText).toContain(`action="${path}/resume"`);
    expect((await you.page(path)).text).not.toContain("is paused:");

    const resumed = await you.post(`${path}/resume`, {});
    expect(resumed.status).toBe(303);
    expect((await you.dashboard.monitors.get(you.accountId, monitor.id))?.status).toBe("active");
  });

  test("a pause shows the reason we gave; a form without the CSRF token or for another's monitor changes nothing", async () => {
    const you = await dashboards.customer();
    const monitor = await monitorOf(you, "hook");
    await you.dashboard.monitors.recordMatches([], [{ monitorId: monitor.id, tweetId: "1" }], Date.now());
    await you.dashboard.monitors.claimWebhooks("test", Date.now(), 60_000, 1);
    await you.dashboard.monitors.finishWebhook(monitor.id, "test", {
      outcome: "failed",
      error: "The receiver answered HTTP 502.",
      nextAttemptAt: Date.now(),
      pause: { reason: "webhook_failing", message: "Paused: the webhook kept failing.", since: Date.now() },
    });
    const page = (await you.page(`/dashboard/monitors/${monitor.id}`)).text;
    expect(page).toContain('<dd id="monitor-status">paused: webhook failing</dd>');
    expect(page).toContain("Paused: the webhook kept failing.");

    const path = `/dashboard/monitors/${monitor.id}/resume`;
    const forged = await you.dashboard.request(path, {
      cookie: you.cookie,
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "csrf_token=wrong",
    });
    expect(forged.status).toBe(403);
    // Someone else, signed in on the same dashboard, cannot see or resume it.
    const other = await signIn(you.dashboard, "bob");
    const theirs = await you.dashboard.request(`/dashboard/monitors/${monitor.id}`, { cookie: other.cookie });
    expect(theirs.status).toBe(404);
    expect((await you.dashboard.monitors.get(you.accountId, monitor.id))?.status).toBe("paused");
  });
});

describe("monitor charges in the request log and usage", () => {
  /**
   * Charges `count` matches of the monitor one post at a time, through core's chargeDelivery as each
   * surface charges (`endpoint` and `call` are what that surface records); the charges' request ids.
   */
  async function chargeEach(you: Customer, monitor: Monitor, count: number, endpoint: string, call: string) {
    const { dashboard } = you;
    const first = (await dashboard.monitors.get(you.accountId, monitor.id))?.lastSeq ?? 0;
    const tweets = Array.from({ length: count }, (_, i) => String(first + i + 1));
    await dashboard.monitors.recordMatches(
      [],
      tweets.map((tweetId) => ({ monitorId: monitor.id, tweetId })),
      Date.now(),
    );
    const ids: string[] = [];
    for (let seq = first + 1; seq <= first + count; seq++) {
      const now = (await dashboard.monitors.get(you.accountId, monitor.id)) as Monitor;
      const charge = { throughSeq: seq, posts: 1, endpoint, call } as Parameters<typeof chargeDelivery>[2];
      const billing = { ledger: dashboard.ledger, monitors: dashboard.monitors };
      expect((await chargeDelivery(billing, now, charge, Date.now())).ok).toBe(true);
      ids.push(`${monitor.id}_${seq}_${seq}`);
    }
    return ids;
  }

  const rowsOf = (page: string) => [...page.matchAll(/<tr><td>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC<\/td>/g)].length;
  const olderLink = (page: string) =>
    /href="(\/dashboard\/requests\?[^"]+)" rel="next"/.exec(page)?.[1]?.replaceAll("&#38;", "&");

  test("are listed by readable names, offered by the endpoint filter, found by id and paged", async () => {
    const you = await dashboards.customer();
    await you.dashboard.accounts.grantCredits(you.accountId, 1_000);
    const hook = await monitorOf(you, "hook");
    const pull = await monitorOf(you, "pull", { type: "pull" });
    const delivered = await chargeEach(you, hook, 2, "monitors.webhook", "POST hooks.example");
    const polled = await chargeEach(you, pull, 50, "monitors.matches", `/v1/monitors/${pull.id}/matches?since=0`);
    const streamed = await chargeEach(you, pull, 1, "monitors.stream", `/v1/monitors/${pull.id}/stream`);

    const log = (await you.page("/dashboard/requests")).text;
    for (const [id, name] of [
      ["monitors.webhook", "monitor webhook deliveries"],
      ["monitors.matches", "/v1/monitors/{id}/matches"],
      ["monitors.stream", "/v1/monitors/{id}/stream"],
      ["monitors.create", "POST /v1/monitors"],
    ]) {
      expect(log).toContain(`<option value="${id}">${name}</option>`);
    }
    // Fifty to a page, monitor charges at its edge: the older page holds the rest.
    expect(rowsOf(log)).toBe(50);
    const older = await you.page(olderLink(log) as string);
    expect(older.status).toBe(200);
    expect(rowsOf(older.text)).toBe(3);

    const webhooks = await you.page("/dashboard/requests?endpoint=monitors.webhook");
    expect(webhooks.status).toBe(200);
    expect(rowsOf(webhooks.text)).toBe(2);
    expect(webhooks.text).toContain("<td><code>POST hooks.example</code></td>");
    expect(rowsOf((await you.page("/dashboard/requests?endpoint=monitors.matches")).text)).toBe(50);
    expect(rowsOf((await you.page("/dashboard/requests?endpoint=monitors.stream")).text)).toBe(1);

    const found = await you.page(`/dashboard/requests?id=${streamed[0]}`);
    expect(found.status).toBe(200);
    expect(rowsOf(found.text)).toBe(1);
    const detail = await you.page(`/dashboard/requests/${delivered[1]}`);
    expect(detail.status).toBe(200);
    expect(detail.text).toContain('<code id="called-path">POST hooks.example</code>');
    expect(polled).toHaveLength(50);

    const usage = (await you.page("/dashboard/usage")).text;
    const byEndpoint = usage.slice(usage.indexOf('id="usage-by-endpoint"'));
    expect(byEndpoint).toContain("<code>monitor webhook deliveries</code>");
    expect(byEndpoint).toContain("<code>/v1/monitors/{id}/matches</code>");
    expect(byEndpoint).toContain("<code>/v1/monitors/{id}/stream</code>");
    expect(byEndpoint).not.toContain("monitors.");
  });
});
