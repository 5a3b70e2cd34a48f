// The dashboard's key pages and forms in-process against a real OpenID Provider: a new key shown once
// across a redirect, revocation behind a confirmation, and a key's own page changing its name, limit and
// expiry through the key rules.
import { describe, expect, test } from "bun:test";
import { csrfTokenIn, form, newKey, setCookie, shownAfter, signIn, testDashboards } from "./dashboard-harness.ts";

const dashboards = testDashboards();
const customer = dashboards.customer;

/** The fields a browser sends with a key's form as the page shows it (its text fields and selection). */
function keyFormFields(page: string): Record<string, string> {
  const form = page.slice(page.indexOf("<h2>Change this key</h2>"));
  const fields: Record<string, string> = {};
  for (const [tag] of form.matchAll(/<input type="(?:text|number|date|hidden)"[^>]*>/g)) {
    const name = / name="([^"]+)"/.exec(tag)?.[1];
    if (name) fields[name] = / value="([^"]*)"/.exec(tag)?.[1] ?? "";
  }
  for (const [, name, options] of form.matchAll(/<select id="[^"]+" name="([^"]+)">(.*?)<\/select>/g)) {
    fields[name as string] = /<option value="([^"]+)" selected>/.exec(options as string)?.[1] ?? "";
  }
  return fields;
}

describe("a new key", () => {
  test("is made by a 303 and shown once on the page it leads to; a reload shows it no more", async () => {
    const you = await customer();
    const { key, created } = await newKey(you, "ci");
    expect(created.status).toBe(303);
    expect(key).toMatch(/^sk_live_/);
    // The message rides in a sealed cookie: the key is nowhere in it as text.
    expect(setCookie(created, "social_flash")?.pair).not.toContain(key);
    const flash = setCookie(created, "social_flash")?.pair ?? "";
    const first = await you.dashboard.request("/dashboard", { cookie: `${you.cookie}; ${flash}` });
    expect(setCookie(first, "social_flash")?.attributes).toContain("Max-Age=0");
    expect((await you.page("/dashboard")).text).not.toContain(key);
    expect(you.dashboard.db.query("SELECT count(*) AS n FROM api_keys").get()).toEqual({ n: 1 });
  });

  test("is shown to the session that made it only: not after sign-out, not to the next person", async () => {
    const dashboard = await dashboards.app();
    const ada = await signIn(dashboard, "ada");
    const token = csrfTokenIn(await (await dashboard.request("/dashboard", { cookie: ada.cookie })).text());
    const created = await dashboard.request("/dashboard/keys", {
      cookie: ada.cookie,
      ...form({ name: "ada's", csrf_token: token }),
    });
    const flash = setCookie(created, "social_flash")?.pair ?? "";
    // Ada signs out without opening the dashboard: the message goes with her session.
    const out = await dashboard.request("/dashboard/sign-out", { cookie: ada.cookie, ...form({ csrf_token: token }) });
    expect(setCookie(out, "social_flash")?.attributes).toContain("Max-Age=0");
    // Even if a browser kept the cookie, Bob's session cannot open it.
    const bob = await signIn(dashboard, "bob");
    const page = await (await dashboard.request("/dashboard", { cookie: `${bob.cookie}; ${flash}` })).text();
    expect(page).not.toMatch(/sk_live_[0-9A-Za-z]{32}/);
    expect(page).not.toContain("ada's");
  });

  test("a flash cookie that was altered or sealed elsewhere shows nothing", async () => {
    const you = await customer();
    const { created } = await newKey(you, "ci");
    const pair = setCookie(created, "social_flash")?.pair ?? "";
    const altered = `${pair.slice(0, -3)}${pair.endsWith("A") ? "BBB" : "AAA"}`;
    const page = await you.dashboard.request("/dashboard", { cookie: `${you.cookie}; ${altered}` });
    expect(await page.text()).not.toMatch(/sk_live_[0-9A-Za-z]{32}/);
    const elsewhere = await customer({ sessionSecret: "another secret entirely" });
    const foreign = await elsewhere.dashboard.request("/dashboard", { cookie: `${elsewhere.cookie}; ${pair}` });
    expect(await foreign.text()).not.toMatch(/sk_live_[0-9A-Za-z]{32}/);
  });
});

describe("revoking a key", () => {
  test("asks first, then revokes and says so", async () => {
    const you = await customer();
    const { id } = await newKey(you, "old");
    const question = await you.page(`/dashboard/keys/${id}/revoke`);
    expect(question.status).toBe(200);
    expect(question.text).toContain("Revoke the key <strong>old</strong>");
    expect(you.dashboard.db.query("SELECT revoked_at FROM api_keys").get()).toEqual({ revoked_at: null });
    const answer = await you.post(`/dashboard/keys/${id}/revoke`, {});
    expect(answer.status).toBe(303);
    expect(await shownAfter(you.dashboard, answer, you.cookie)).toContain("The key “old”");
    expect(
      you.dashboard.db.query<{ revoked_at: number | null }, []>("SELECT revoked_at FROM api_keys").get()?.revoked_at,
    ).toBeNumber();
    // Twice is a page that says it is done already, not a second revocation.
    expect((await you.post(`/dashboard/keys/${id}/revoke`, {})).status).toBe(404);
    expect((await you.page(`/dashboard/keys/${id}/revoke`)).text).toContain("revoked already");
  });
});

describe("a key's page", () => {
  test("changes the name, limit and expiry through the key rules; a refused change keeps what was typed", async () => {
    const you = await customer();
    const { id } = await newKey(you, "ci");
    expect((await you.page("/dashboard")).text).toContain(`<a href="/dashboard/keys/${id}">ci</a>`);
    const shown = await you.page(`/dashboard/keys/${id}`);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('value="ci"');

    const saved = await you.post(`/dashboard/keys/${id}`, {
      name: "ci (nightly)",
      limit: "5",
      per: "day",
      expires: "2099-01-31",
    });
    expect(saved.status).toBe(303);
    expect(await shownAfter(you.dashboard, saved, you.cookie)).toContain("The key “ci (nightly)” (");
    expect(await you.dashboard.accounts.key(id)).toMatchObject({
      name: "ci (nightly)",
      allowance: { credits: 5, per: "day", remaining: 5 },
      expiresAt: Date.UTC(2099, 0, 31),
    });
    const edited = (await you.page(`/dashboard/keys/${id}`)).text;
    expect(edited).toContain('value="5"');
    expect(edited).toContain('<option value="day" selected>');
    expect(edited).toContain('value="2099-01-31"');

    const refused = await you.post(`/dashboard/keys/${id}`, {
      name: "renamed",
      limit: "five",
      per: "total",
      expires: "",
    });
    expect(refused.status).toBe(400);
    const page = await refused.text();
    expect(page).toContain("A key&#39;s limit is a whole number of credits");
    expect(page).toContain('value="renamed"');
    expect((await you.dashboard.accounts.key(id))?.name).toBe("ci (nightly)");

    // Emptied, the limit and expiry go: the balance is the key's only limit again.
    await you.post(`/dashboard/keys/${id}`, { name: "ci", limit: "", per: "total", expires: "" });
    expect(await you.dashboard.accounts.key(id)).toMatchObject({ name: "ci", allowance: null, expiresAt: null });
  });

  test("an expired key stays expired when its form is saved as shown; turning it back on is a choice", async () => {
    const you = await customer();
    const { id } = await newKey(you, "lapsed");
    const lapsedAt = Date.UTC(2001, 0, 1);
    await you.dashboard.accounts.updateKey(id, { name: "lapsed", expiresAt: lapsedAt });
    const page = (await you.page(`/dashboard/keys/${id}`)).text;
    // Renamed and limited through the form as the page shows it: the expiry stays, and so the refusal.
    const shown = keyFormFields(page);
    expect(shown.expires).toBe("2001-01-01");
    const renamed = await you.post(`/dashboard/keys/${id}`, { ...shown, name: "renamed", limit: "7" });
    expect(renamed.status).toBe(303);
    expect(await you.dashboard.accounts.key(id)).toMatchObject({ name: "renamed", expiresAt: lapsedAt });
    expect((await you.dashboard.accounts.key(id))?.allowance?.credits).toBe(7);
    expect(page).toContain("This key expired 2001-01-01 00:00 UTC: saving keeps it expired");

    // The field emptied alone is no choice: refused, and the key stays expired.
    const emptied = await you.post(`/dashboard/keys/${id}`, { ...shown, expires: "" });
    expect(emptied.status).toBe(400);
    expect(await emptied.text()).toContain("This key has expired: to turn it back on, choose a later day or tick");
    expect((await you.dashboard.accounts.key(id))?.expiresAt).toBe(lapsedAt);

    // A later day, or the box ticked, turns it back on.
    await you.post(`/dashboard/keys/${id}`, { ...shown, expires: "2099-01-31" });
    expect((await you.dashboard.accounts.key(id))?.expiresAt).toBe(Date.UTC(2099, 0, 31));
    await you.dashboard.accounts.updateKey(id, { name: "lapsed", expiresAt: lapsedAt });
    const revived = await you.post(`/dashboard/keys/${id}`, { ...keyFormFields(page), revive: "yes" });
    expect(revived.status).toBe(303);
    expect((await you.dashboard.accounts.key(id))?.expiresAt).toBeNull();
  });

  test("a key's expiry is kept by a save that leaves its field as shown, to the millisecond", async () => {
    const you = await customer();
    const { id } = await newKey(you, "timed");
    const at = Date.UTC(2099, 0, 31, 12, 0, 0, 500);
    await you.dashboard.accounts.updateKey(id, { name: "timed", expiresAt: at });
    const shown = keyFormFields((await you.page(`/dashboard/keys/${id}`)).text);
    expect(shown.expires).toBe("2099-01-31T12:00:00Z");
    expect((await you.post(`/dashboard/keys/${id}`, { ...shown, name: "renamed" })).status).toBe(303);
    expect(await you.dashboard.accounts.key(id)).toMatchObject({ name: "renamed", expiresAt: at });
  });

  test("is the account's own: another's key is a 404, and a revoked key is shown but not changed", async () => {
    const you = await customer();
    const { id } = await newKey(you, "old");
    const bob = await you.dashboard.accounts.openAccount("Bob");
    expect((await you.page(`/dashboard/keys/${bob.key.keyId}`)).status).toBe(404);
    expect((await you.post(`/dashboard/keys/${bob.key.keyId}`, { name: "mine now" })).status).toBe(404);
    expect((await you.dashboard.accounts.key(bob.key.keyId))?.name).toBe("Bob");
    await you.post(`/dashboard/keys/${id}/revoke`, {});
    const revoked = await you.page(`/dashboard/keys/${id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.text).toContain("A revoked key cannot be changed.");
    expect((await you.post(`/dashboard/keys/${id}`, { name: "back" })).status).toBe(404);
    expect((await you.dashboard.accounts.key(id))?.name).toBe("old");
  });
});
