// Billing: what credits cost here (each plan's price per 1,000 credits beside it) and where to get more
// (the operator's checkout, BILLING_URL, one Buy button per plan whose link names the account and the
// plan, or an address to write to, BILLING_CONTACT), the balance, and the history of grants (each by
// its reason) and charges. The
// operator's prices are theirs to state (BILLING_PLANS); without a way to buy, the page says plainly
// that the operator grants credits. The operator's own tools are never shown to customers.
import { type BillingSettings, checkoutUrl, isEmailAddress, type Plan, pricePerThousand } from "@social/composition";
import type { DailyUsage, Grant } from "@social/core";
import { plural, scrollable, toMinute } from "./format.ts";
import { type Html, html, layout, type Viewer } from "./html.ts";

function howToBuy(settings: BillingSettings, accountId: string | undefined): Html {
  const quote = accountId ? html` Your account id is <code id="account-id">${accountId}</code>.` : "";
  if (settings.url) {
    // With plans, each plan has its own Buy button; without, one button buys credits.
    const buy =
      settings.plans.length > 0
        ? ""
        : accountId
          ? html`<p><a class="button" href="${checkoutUrl(settings.url, accountId, "")}" id="buy">Buy credits</a></p>`
          : "";
    return html`${buy}<p class="muted">The checkout is the operator's own site; credits bought there are added to this account.${quote}</p>`;
  }
  if (settings.contact) {
    const href = isEmailAddress(settings.contact) ? `mailto:${settings.contact}` : settings.contact;
    return html`<p>To get credits, write to <a href="${href}" id="contact">${settings.contact}</a>, quoting your account id.${quote}</p>`;
  }
  return html`<p id="granted">Credits on this server are granted by its operator, who has not published a way to buy
them here: ask whoever gave you access.${quote}</p>`;
}

/** A plan's Buy button: to the checkout for this account and plan, or to sign in first. */
function buyButton(plan: Plan, settings: BillingSettings, buyer: { accountId?: string; signIn?: string }): Html | "" {
  if (!settings.url) return "";
  if (!buyer.accountId) {
    return buyer.signIn
      ? html`<p><a class="button secondary" href="${buyer.signIn}">Sign in to buy ${plan.name}</a></p>`
      : "";
  }
  return html`<p><a class="button" href="${checkoutUrl(settings.url, buyer.accountId, plan.name)}">Buy ${plan.name}</a></p>`;
}

function plansSection(settings: BillingSettings, buyer: { accountId?: string; signIn?: string }): Html {
  if (settings.plans.length === 0) return html``;
  const cards = settings.plans.map((plan) => {
    const each = pricePerThousand(plan);
    return html`<section><h3>${plan.name}</h3><p class="price">${plan.price}</p>
<p>${plural(plan.credits, "credit")}${each ? html`<br><span class="per-thousand">${each} per 1,000 credits</span>` : ""}</p>${plan.note ? html`<p class="muted">${plan.note}</p>` : ""}${buyButton(plan, settings, buyer)}</section>`;
  });
  return html`<h2>Plans</h2><div class="plans" id="plans">${cards}</div>`;
}

/** Why credits were added, as the customer reads it. */
function grantReason(grant: Grant): Html | string {
  return grant.refundOf ? html`refund of <code>${grant.refundOf}</code>, an answer never delivered` : grant.reason;
}

export interface BillingView {
  viewer?: Viewer;
  settings: BillingSettings;
  /** Present for a signed-in customer. */
  account?: { id: string; balance: number; grants: readonly Grant[]; days: readonly DailyUsage[] };
  /** Where signing in starts, for a visitor. */
  signIn?: string;
}

function history(account: NonNullable<BillingView["account"]>): Html {
  const grants =
    account.grants.length === 0
      ? html`<p>No credits added yet.</p>`
      : scrollable(
          "Credits added",
          html`<table id="grants"><thead><tr><th scope="col">When</th><th scope="col" class="number">Credits</th><th scope="col">Why</th></tr></thead>
<tbody>${account.grants.map(
            (grant) =>
              html`<tr><td>${toMinute(grant.createdAt)}</td><td class="number">+${grant.credits}</td><td>${grantReason(grant)}</td></tr>`,
          )}</tbody></table>`,
        );
  const charged = account.days.filter((day) => day.credits > 0).reverse();
  const charges =
    charged.length === 0
      ? html`<p>No charges in the last ${account.days.length} days.</p>`
      : scrollable(
          "Credits charged per day",
          html`<table id="charges"><thead><tr><th scope="col">Day (UTC)</th><th scope="col" class="number">Requests</th><th scope="col" class="number">Credits</th></tr></thead>
<tbody>${charged.map((day) => html`<tr><td>${day.day}</td><td class="number">${day.requests}</td><td class="number">−${day.credits}</td></tr>`)}</tbody></table>`,
        );
  return html`<h2>Credits added</h2>${grants}<h2>Charges</h2>${charges}`;
}

export function billingPage(view: BillingView): Html {
  const { account } = view;
  const balance = account
    ? html`<h2>Balance</h2><p class="balance" id="balance">${plural(account.balance, "credit")}</p>`
    : html`<p><a class="button" href="${view.signIn ?? "/dashboard"}">Sign in</a> to see your balance and its history.</p>`;
  return layout(
    { title: "Billing", section: "billing", ...(view.viewer ? { viewer: view.viewer } : {}) },
    html`<p>Every request is billed in credits; each answer reports what it charged and what is left. A request that
fails is never charged. What each endpoint costs is in the <a href="/docs">API docs</a>.</p>
${balance}
${plansSection(view.settings, { ...(account ? { accountId: account.id } : {}), ...(view.signIn ? { signIn: view.signIn } : {}) })}
<h2>Add credits</h2>
${howToBuy(view.settings, account?.id)}
<p>A new balance applies at once: a request refused with 402 can simply be sent again.</p>
${account ? history(account) : ""}`,
  );
}
