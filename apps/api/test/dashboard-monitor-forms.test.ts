// The dashboard's monitor forms in-process against a real OpenID Provider: they create, change and delete
// monitors by the API's rules (core's manage.ts and settings.ts), refusals with the API's message beside
// the field and the typed values kept, behind the session's CSRF token, free of charge; another
// account's monitor cannot be changed or deleted.
import { describe, expect, test } from "bun:test";
import { MONITOR_LIMITS, newMonitorId, newMonitorSecret } from "@social/core";
import { type Customer, csrfTokenIn, form, newKey, setCookie, signIn, testDashboards } from "./dashboard-harness.ts";
import { monitorOf, rowOf } from "./dashboard-monitor-fixtures.ts";

const dashboards = testDashboards();

/** The page a form's redirect leads to, with the one-time message it set, and that message's cookie. */
async function followed(you: Customer, answer: Response) {
  expect(answer.status).toBe(303);
  const location = answer.headers.get("location") ?? "";
  const flash = setCookie(answer, "social_flash")?.pair ?? "";
  const response = await you.dashboard.request(location, { cookie: `${you.cookie}; ${flash}` });
  return { location, status: response.status, text: await response.text() };
}

/** An input's value attribute on the page, unescaped for the characters the tests type. */
function inputValue(page: string, id: string): string | undefined {
  const tag = new RegExp(`<(?:input|select)[^>]* id="${id}"[^>]*>`).exec(page)?.[0] ?? "";
  return /value="([^"]*)"/.exec(tag)?.[1]?.replaceAll("&#34;", '"').replaceAll("&#38;", "&").replaceAll("&#58;", ":");
}

/** The account's balance and how many usage rows it has: managing monitors changes neither. */
function chargesOf(you: Customer) {
  const db = you.dashboard.db;
  const balance = db
    .query<{ balance: number }, [string]>("SELECT balance FROM accounts WHERE id = ?")
    .get(you.accountId);
  const usage = db.query<{ rows: number }, []>("SELECT count(*) AS rows FROM usage").get();
  return { balance: balance?.balance, usage: usage?.rows };
}

const MONITOR_FIELDS = { query: "#coffee lang:en", name: "Coffee talk", delivery: "pull", url: "", cap: "200" };

describe("the monitor forms", () => {
  test("create a pull monitor charged to the chosen key, listed with its settings, free of charge", async () => {
    const you = await dashboards.customer();
    const first = await newKey(you, "first");
    const second = await newKey(you, "second");
    const before = chargesOf(you);
    const list = (await you.page("/dashboard/monitors")).text;
    expect(list).toContain(`<option value="${second.id}">second (`);
    expect(list).toContain('action="/dashboard/monitors"');

    const created = await you.post("/dashboard/monitors", { ...MONITOR_FIELDS, key: second.id });
    const [monitor] = await you.dashboard.monitors.list(you.accountId);
    expect(monitor).toMatchObject({
      name: "Coffee talk",
      query: "#coffee lang:en",
      delivery: { type: "pull" },
      dailyCreditCap: 200,
      keyId: second.id,
      status: "active",
    });
    const shown = await followed(you, created);
    expect(shown.location).toBe(`/dashboard/monitors/${monitor?.id}`);
    expect(shown.text).toContain("The monitor “Coffee talk” is created.");
    expect(shown.text).not.toContain('id="new-secret"');
    expect(rowOf((await you.page("/dashboard/monitors")).text, "Coffee talk")).toBe(
      "Coffee talk #coffee lang:en pull (stream, poll, MCP) active — 0 0 0 of 200 credits",
    );
    expect(chargesOf(you)).toEqual(before);
    expect(first.id).not.toBe(second.id);
  });

  test("create a webhook monitor: its signing secret is shown once, on its page", async () => {
    const you = await dashboards.customer();
    const { id: keyId } = await newKey(you, "hooks");
    const created = await you.post("/dashboard/monitors", {
      query: "coffee",
      name: "",
      delivery: "webhook",
      url: "https://hooks.example/in",
      cap: "",
      key: keyId,
    });
    const [monitor] = await you.dashboard.monitors.list(you.accountId);
    expect(monitor?.delivery).toEqual({ type: "webhook", url: "https://hooks.example/in" });
    expect(monitor?.name).toBeUndefined();
    expect(monitor?.dailyCreditCap).toBeUndefined();
    const shown = await followed(you, created);
    expect(shown.text).toContain(`<code class="key" id="new-secret">${monitor?.secret}</code>`);
    expect(shown.text).toContain(`<script src="/dashboard/copy.js" defer></script>`);
    const again = await you.page(`/dashboard/monitors/${monitor?.id}`);
    expect(again.text).not.toContain(monitor?.secret ?? "whsec_");
  });

  test("each refusal is the API's message beside the form, the typed values kept, nothing created", async () => {
    const you = await dashboards.customer();
    const { id: keyId } = await newKey(you, "mine");
    const cases: [Record<string, string>, string, string][] = [
      [{ query: "" }, "Invalid request: query must not be empty", "monitor-query"],
      [{ query: "(coffee" }, "query: Unbalanced parenthesis at position", "monitor-query"],
      [{ name: "n".repeat(101) }, "Invalid request: name must be at most 100 characters", "monitor-name"],
      [{ cap: "0" }, "Invalid request: daily_credit_cap must be an integer from 1 to", "monitor-cap"],
      [{ cap: "lots" }, "Invalid request: daily_credit_cap must be an integer from 1 to", "monitor-cap"],
      [
        { delivery: "webhook", url: "not a url" },
        "delivery.url: The webhook URL is not a valid absolute URL.",
        "monitor-url",
      ],
      [
        { delivery: "webhook", url: "http://127.0.0.1:8080/in" },
        "delivery.url: A webhook URL must reach a public address",
        "monitor-url",
      ],
      [{ key: "key_not_mine" }, "Choose one of your active keys", "monitor-key"],
    ];
    for (const [change, message, invalid] of cases) {
      const fields = { ...MONITOR_FIELDS, key: keyId, ...change };
      const refused = await you.post("/dashboard/monitors", fields);
      expect({ change, status: refused.status }).toEqual({ change, status: 400 });
      const page = await refused.text();
      const error = /<p class="notice error" role="alert" id="monitor-error">([^<]*)<\/p>/.exec(page)?.[1] ?? "";
      expect(error.replaceAll("&#34;", '"')).toContain(message);
      expect(page).toMatch(
        new RegExp(`id="${invalid}"[^>]* aria-describedby="[^"]* monitor-error" aria-invalid="true"`),
      );
      for (const [field, id] of [
        ["query", "monitor-query"],
        ["name", "monitor-name"],
        ["url", "monitor-url"],
        ["cap", "monitor-cap"],
      ] as const) {
        expect({ change, field, value: inputValue(page, id) }).toEqual({ change, field, value: fields[field].trim() });
      }
      expect(page).toContain(`value="${fields.delivery}" checked`);
    }
    expect(await you.dashboard.monitors.list(you.accountId)).toEqual([]);
  });

  test("the operator's allowance of private webhooks is the API's", async () => {
    const you = await dashboards.customer({ monitorSettings: { allowPrivateWebhooks: true } });
    const { id: keyId } = await newKey(you, "local");
    const fields = { ...MONITOR_FIELDS, key: keyId, delivery: "webhook", url: "http://127.0.0.1:8080/in" };
    expect((await you.post("/dashboard/monitors", fields)).status).toBe(303);
    expect((await you.dashboard.monitors.list(you.accountId))[0]?.delivery).toEqual({
      type: "webhook",
      url: "http://127.0.0.1:8080/in",
    });
  });

  test("a revoked key is not offered nor taken; without a paying key the page says to make one", async () => {
    const you = await dashboards.customer();
    expect((await you.page("/dashboard/monitors")).text).toContain('id="monitor-needs-key"');
    const { id: keyId } = await newKey(you, "gone");
    await you.dashboard.accounts.revokeKey(keyId);
    const page = (await you.page("/dashboard/monitors")).text;
    expect(page).toContain('id="monitor-needs-key"');
    expect(page).not.toContain(`value="${keyId}"`);
    expect((await you.post("/dashboard/monitors", { ...MONITOR_FIELDS, key: keyId })).status).toBe(400);
    expect(await you.dashboard.monitors.list(you.accountId)).toEqual([]);
  });

  test("the limit of monitors an account holds is the API's, with its message", async () => {
    const you = await dashboards.customer();
    const { id: keyId } = await newKey(you, "many");
    for (let made = 0; made < MONITOR_LIMITS.perAccount; made++) {
      const created = await you.dashboard.monitors.create(
        {
          id: newMonitorId(),
          accountId: you.accountId,
          keyId,
          query: `coffee ${made}`,
          delivery: { type: "pull" },
          secret: newMonitorSecret(),
          now: Date.now(),
        },
        MONITOR_LIMITS.perAccount,
      );
      expect(created.ok).toBe(true);
    }
    const refused = await you.post("/dashboard/monitors", { ...MONITOR_FIELDS, key: keyId });
    expect(refused.status).toBe(400);
    const page = await refused.text();
    expect(page).toContain(`An account holds at most ${MONITOR_LIMITS.perAccount} monitors`);
    expect(inputValue(page, "monitor-name")).toBe("Coffee talk");
    expect(await you.dashboard.monitors.list(you.accountId)).toHaveLength(MONITOR_LIMITS.perAccount);
  });

  test("edit changes what was changed, keeps a hold a rename does not touch, and shows a refusal", async () => {
    const you = await dashboards.customer();
    const monitor = await monitorOf(you, "news", { type: "pull" });
    const hold = { reason: "insufficient_credits" as const, message: "No credits.", since: Date.now() };
    await you.dashboard.monitors.setHold(monitor.id, hold);
    const path = `/dashboard/monitors/${monitor.id}`;
    const page = (await you.page(path)).text;
    expect(page).toContain(`<form method="post" action="${path}">`);
    expect(inputValue(page, "monitor-query")).toBe("#coffee lang:en");
    expect(inputValue(page, "monitor-cap")).toBe("500");
    expect(page).not.toContain('id="monitor-key"');

    const renamed = await you.post(path, {
      query: "#coffee lang:en",
      name: "morning news",
      delivery: "pull",
      url: "",
      cap: "500",
    });
    expect((await followed(you, renamed)).text).toContain("The monitor “morning news” is saved.");
    const afterRename = await you.dashboard.monitors.get(you.accountId, monitor.id);
    expect(afterRename?.name).toBe("morning news");
    expect(afterRename?.hold).toEqual(hold);

    const refused = await you.post(path, {
      query: "tea",
      name: "",
      delivery: "webhook",
      url: "ftp://hooks.example/in",
      cap: "",
    });
    expect(refused.status).toBe(400);
    const refusedPage = await refused.text();
    expect(refusedPage).toContain("delivery.url: A webhook URL must use http or https.");
    expect(inputValue(refusedPage, "monitor-query")).toBe("tea");
    expect(inputValue(refusedPage, "monitor-url")).toBe("ftp://hooks.example/in");
    expect((await you.dashboard.monitors.get(you.accountId, monitor.id))?.query).toBe("#coffee lang:en");

    const changed = await you.post(path, {
      query: "tea",
      name: "",
      delivery: "webhook",
      url: "https://hooks.example/tea",
      cap: "",
    });
    const stored = await you.dashboard.monitors.get(you.accountId, monitor.id);
    expect(stored).toMatchObject({ query: "tea", delivery: { type: "webhook", url: "https://hooks.example/tea" } });
    expect(stored?.name).toBeUndefined();
    expect(stored?.dailyCreditCap).toBeUndefined();
    // A pull monitor turned webhook has a secret to sign with now: shown once, as at creation.
    expect((await followed(you, changed)).text).toContain(`id="new-secret">${stored?.secret}</code>`);
  });

  test("delete asks first, then removes the monitor and its matches", async () => {
    const you = await dashboards.customer();
    const monitor = await monitorOf(you, "old");
    await you.dashboard.monitors.recordMatches([], [{ monitorId: monitor.id, tweetId: "1" }], Date.now());
    const countMatches = () =>
      you.dashboard.db
        .query<{ rows: number }, [string]>("SELECT count(*) AS rows FROM monitor_matches WHERE monitor_id = ?")
        .get(monitor.id)?.rows;
    expect(countMatches()).toBe(1);
    const path = `/dashboard/monitors/${monitor.id}`;
    expect((await you.page(path)).text).toContain(`href="${path}/delete"`);
    const asked = await you.page(`${path}/delete`);
    expect(asked.status).toBe(200);
    expect(asked.text).toContain(`<form method="post" action="${path}/delete" class="actions">`);
    expect(await you.dashboard.monitors.get(you.accountId, monitor.id)).toBeDefined();

    const deleted = await you.post(`${path}/delete`, {});
    const shown = await followed(you, deleted);
    expect(shown.location).toBe("/dashboard/monitors");
    expect(shown.text).toContain("The monitor “old” is deleted, with its matches.");
    expect(shown.text).toContain('id="no-monitors"');
    expect(await you.dashboard.monitors.get(you.accountId, monitor.id)).toBeUndefined();
    expect(countMatches()).toBe(0);
    expect((await you.page(path)).status).toBe(404);
  });

  test("another account's monitor cannot be changed or deleted, and a forged form changes nothing", async () => {
    const you = await dashboards.customer();
    const monitor = await monitorOf(you, "mine");
    const path = `/dashboard/monitors/${monitor.id}`;
    const other = await signIn(you.dashboard, "bob");
    const token = csrfTokenIn(await (await you.dashboard.request("/dashboard", { cookie: other.cookie })).text());
    const fields = { query: "tea", name: "theirs", delivery: "pull", url: "", cap: "", csrf_token: token };
    const asBob = (to: string, sent: Record<string, string>) =>
      you.dashboard.request(to, { cookie: other.cookie, ...form(sent) });
    expect((await asBob(path, fields)).status).toBe(404);
    expect((await you.dashboard.request(`${path}/delete`, { cookie: other.cookie })).status).toBe(404);
    expect((await asBob(`${path}/delete`, { csrf_token: token })).status).toBe(404);

    const forged = { query: "tea", name: "forged", delivery: "pull", url: "", cap: "", csrf_token: "wrong" };
    const asYou = (to: string, sent: Record<string, string>) =>
      you.dashboard.request(to, { cookie: you.cookie, ...form(sent) });
    expect((await asYou(path, forged)).status).toBe(403);
    expect((await asYou(`${path}/delete`, { csrf_token: "wrong" })).status).toBe(403);
    const { id: keyId } = await newKey(you, "forged");
    expect((await asYou("/dashboard/monitors", { ...forged, key: keyId })).status).toBe(403);

    const stored = await you.dashboard.monitors.list(you.accountId);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ name: "mine", query: "#coffee lang:en" });
  });
});
