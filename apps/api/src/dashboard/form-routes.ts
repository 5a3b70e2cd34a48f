// The forms of the dashboard's own page: a new key, a key's page that changes its name, limit and
// expiry, revoking one (after a page that asks), and the balance warning. A refused form shows the page
// again with what to change.
import { describeAllowance, LedgerError, MAX_ACTIVE_KEYS_PER_ACCOUNT, parseKeyOptions } from "@social/core";
import { Elysia } from "elysia";
import type { HttpContext } from "../http/context.ts";
import { toMinute } from "./format.ts";
import { htmlResponse } from "./html.ts";
import { chosenExpiry, type KeyForm, keyPage } from "./key-page.ts";
import { checkKeyName, errorPage, revokePage } from "./pages.ts";
import { type DashboardSite, field, type SignedIn, textField } from "./site.ts";

const TOO_MANY_KEYS = `You already have ${MAX_ACTIVE_KEYS_PER_ACCOUNT} active keys, the most an account can hold: revoke one you no longer use, then create the new one.`;

/** The threshold field: empty for the default, else whole credits. */
function warningField(value: string): { credits: number | null } | { error: string } {
  const text = value.trim();
  if (text === "") return { credits: null };
  const credits = Number(text);
  if (!/^\d{1,15}$/.test(text) || !Number.isSafeInteger(credits)) {
    return { error: "The warning is a whole number of credits, or empty for the default." };
  }
  return { credits };
}

export function formRoutes(context: HttpContext, site: DashboardSite) {
  const { accounts } = site;

  /** One of the account's own keys, revoked or not, or the page that says it is not one. */
  const ownKeyOf = async (who: SignedIn, keyId: string) => {
    const key = await accounts.key(keyId);
    if (key && key.accountId === who.accountId) return key;
    return htmlResponse(errorPage("No such key", "That key is not one of yours.", who.viewer), 404);
  };

  /** One of the account's own keys, still active, or the page that says it is not. */
  const activeKeyOf = async (who: SignedIn, keyId: string) => {
    const key = await ownKeyOf(who, keyId);
    if (key instanceof Response || key.revokedAt === null) return key;
    return htmlResponse(errorPage("No such key", "That key is revoked already.", who.viewer), 404);
  };

  return new Elysia({ name: "dashboard-forms" })
    .use(context)
    .post("/dashboard/keys", async ({ request, body }) => {
      const who = await site.formPoster(request, body);
      if (who instanceof Response) return who;
      const checked = checkKeyName(field(body, "name"));
      if ("error" in checked) return site.home(request, who, { form: "key", message: checked.error }, 400);
      const limits = parseKeyOptions(
        { limit: textField(body, "limit"), per: textField(body, "per"), expires: textField(body, "expires") },
        Date.now(),
      );
      if ("error" in limits) return site.home(request, who, { form: "key", message: limits.error }, 400);
      try {
        const { key } = await accounts.createKey(who.accountId, checked.name, limits.options);
        return site.done(who, { newKey: { key, name: checked.name } });
      } catch (error) {
        if (!(error instanceof LedgerError && error.code === "too_many_keys")) throw error;
        return site.home(request, who, { form: "key", message: TOO_MANY_KEYS }, 409);
      }
    })
    .get("/dashboard/keys/:keyId", async ({ request, params }) => {
      const who = await site.signedIn(request);
      if (!who) return site.signInFirst(request);
      const key = await ownKeyOf(who, params.keyId);
      return key instanceof Response ? key : htmlResponse(keyPage({ viewer: who.viewer, key }));
    })
    .post("/dashboard/keys/:keyId", async ({ request, body, params }) => {
      const who = await site.formPoster(request, body);
      if (who instanceof Response) return who;
      const key = await activeKeyOf(who, params.keyId);
      if (key instanceof Response) return key;
      const form: KeyForm = {
        name: textField(body, "name"),
        limit: textField(body, "limit"),
        per: textField(body, "per"),
        expires: textField(body, "expires"),
        expiresWas: typeof field(body, "expires_was") === "string" ? textField(body, "expires_was") : null,
        revive: textField(body, "revive") !== "",
      };
      const refused = (message: string) =>
        htmlResponse(keyPage({ viewer: who.viewer, key, refused: { message, form } }), 400);
      const checked = checkKeyName(form.name);
      if ("error" in checked) return refused(checked.error);
      const now = Date.now();
      const expiry = chosenExpiry(form, key, now);
      if ("error" in expiry) return refused(expiry.error);
      const limits = parseKeyOptions({ ...form, expires: "kept" in expiry ? "" : expiry.typed }, now);
      if ("error" in limits) return refused(limits.error);
      const expiresAt = "kept" in expiry ? (expiry.kept ?? undefined) : limits.options.expiresAt;
      const changes = { name: checked.name, limit: limits.options.limit, expiresAt };
      const changed = await accounts.updateKey(key.id, changes).catch((error) => {
        // Revoked since the check above: nothing was changed.
        if (error instanceof LedgerError && error.code === "revoked_key") return undefined;
        throw error;
      });
      if (!changed) return htmlResponse(errorPage("No such key", "That key is revoked already.", who.viewer), 404);
      return site.done(who, {
        notice: `The key “${changed.name}” (${changed.prefix}…) is saved: ${describeAllowance(changed.allowance)}, expires ${toMinute(changed.expiresAt)}.`,
      });
    })
    .get("/dashboard/keys/:keyId/revoke", async ({ request, params }) => {
      const who = await site.signedIn(request);
      if (!who) return site.signInFirst(request);
      const key = await activeKeyOf(who, params.keyId);
      return key instanceof Response ? key : htmlResponse(revokePage(who.viewer, key));
    })
    .post("/dashboard/keys/:keyId/revoke", async ({ request, body, params }) => {
      const who = await site.formPoster(request, body);
      if (who instanceof Response) return who;
      const key = await activeKeyOf(who, params.keyId);
      if (key instanceof Response) return key;
      await accounts.revokeKey(key.id);
      return site.done(who, {
        notice: `The key “${key.name}” (${key.prefix}…) is revoked: requests made with it are refused from now on.`,
      });
    })
    .post("/dashboard/warning", async ({ request, body }) => {
      const who = await site.formPoster(request, body);
      if (who instanceof Response) return who;
      const typed = textField(body, "credits");
      const warning = warningField(typed);
      if ("error" in warning) {
        return site.home(request, who, { form: "warning", message: warning.error, typed }, 400);
      }
      await accounts.setLowBalanceWarning(who.accountId, warning.credits);
      return site.done(who, {
        notice:
          warning.credits === null
            ? "You will be warned below the default: a tenth of the credits last added."
            : `You will be warned when the balance is below ${warning.credits.toLocaleString("en-US")} credits.`,
      });
    });
}
