// The monitors' part of /docs: what a monitor is and costs, every operation /openapi.json describes for
// /v1/monitors with what it does and costs (read from the same operations, so the two cannot differ), and
// what a webhook receiver is sent and how to check it.
import {
  CREDITS_PER_DELIVERED_POST,
  DELIVERY_HEADER,
  MAX_RETRY_DELAY_MS,
  MONITOR_LIMITS,
  SIGNATURE_HEADER,
} from "@social/core";
import { monitorsOpenApi } from "../monitors/openapi.ts";
import { WEBHOOK_TIMEOUT_MS } from "../monitors/webhook-send.ts";
import { escapeHtml } from "../site/page.ts";

interface Operation {
  summary: string;
  "x-cost": string;
}

function operationRows(): string {
  return Object.entries(monitorsOpenApi().paths)
    .flatMap(([path, methods]) =>
      Object.entries(methods as Record<string, Operation>).map(
        ([method, operation]) =>
          `<tr><th scope="row"><span class="method">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></th><td>${escapeHtml(operation.summary)}</td><td>${escapeHtml(operation["x-cost"])}</td></tr>`,
      ),
    )
    .join("");
}

export function monitorsSection(): string {
  const price = `${CREDITS_PER_DELIVERED_POST} credit${CREDITS_PER_DELIVERED_POST === 1 ? "" : "s"}`;
  return `<section id="monitors" aria-labelledby="monitors-title"><h2 id="monitors-title">Monitors</h2>
<p>A monitor is a saved search query (the <a href="#operators">operators</a> above, without time bounds) matched against each post as it arrives, so that new posts come to you instead of being polled for. Its matches are numbered 1, 2, … (each one's <code>seq</code>, the cursor) and either POSTed to your webhook (delivery <code>{"type":"webhook","url":…}</code>) or read by stream, poll or the MCP tool <code>get_monitor_matches</code> (delivery <code>{"type":"pull"}</code>). ${price} per delivered post, charged once whichever way it goes out; managing monitors is free. At most ${MONITOR_LIMITS.perAccount} per account, each with an optional daily credit cap.</p>
<table id="monitor-operations"><caption class="visually-hidden">Monitor operations</caption><thead><tr><th scope="col">Operation</th><th scope="col">What it does</th><th scope="col">Cost</th></tr></thead><tbody>${operationRows()}</tbody></table>
<h3 id="monitor-webhooks">Webhooks</h3>
<p>Each batch of up to ${MONITOR_LIMITS.batch} matches is a POST of <code>{"monitor_id", "delivery_id", "cursor", "tweets"}</code> with the headers <code>${SIGNATURE_HEADER}: t=&lt;unix seconds&gt;,v1=&lt;hex&gt;</code>, the HMAC-SHA256 of <code>&lt;t&gt;.&lt;raw body&gt;</code> keyed with the monitor's <code>secret</code>, and <code>${DELIVERY_HEADER}</code>, the delivery id. Answer any 2xx within ${WEBHOOK_TIMEOUT_MS / 1000} s: the batch is then charged. Anything else is retried with the same delivery id and posts, at growing intervals of at most ${MAX_RETRY_DELAY_MS / 3_600_000} hour, for ${MONITOR_LIMITS.retryWindowMs / 3_600_000} hours; then the monitor is paused. Delivery is at least once: skip a delivery id you have processed. Only public addresses are called, and redirects are not followed.</p></section>`;
}
