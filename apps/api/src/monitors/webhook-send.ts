// One POST of a webhook delivery to the customer's URL, and nothing a URL could turn against us: the
// host's addresses are resolved first and a private one refused (unless MONITOR_ALLOW_PRIVATE), plain
// http connects to the address that was checked (a second lookup could answer otherwise), redirects are
// not followed, the whole attempt has a deadline, and the answer's body is read only far enough to
// quote its start in the error.
import { isPrivateAddress, webhookUrlProblem } from "@social/core";

/** How long one attempt may take, the lookup included. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Bytes of a refusing answer's body kept for its error. */
const QUOTED_BODY_BYTES = 512;
const QUOTED_BODY_CHARS = 200;

export interface WebhookPost {
  url: string;
  body: string;
  headers: Record<string, string>;
}

export type SendOutcome =
  | { ok: true }
  /** The receiver refused, or could not be reached: `error` says which, for the customer. */
  | { ok: false; error: string }
  /** This process is stopping: the attempt was given up, and says nothing of the receiver. */
  | { ok: false; stopped: true };

/** Where to connect: the URL as given, or (plain http) its checked address with the host kept as Host. */
interface Target {
  url: string;
  host?: string;
}

function bare(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, "");
}

async function resolved(hostname: string, deadline: AbortSignal): Promise<string[]> {
  const host = bare(hostname);
  if (host.includes(":") || /^[\d.]+$/.test(host)) return [host];
  const aborted = new Promise<never>((_, reject) => {
    deadline.addEventListener("abort", () => reject(deadline.reason), { once: true });
  });
  const found = await Promise.race([Bun.dns.lookup(host, {}), aborted]);
  return found.map((entry) => entry.address);
}

/** The connection target of `url`, or why it may not be reached. */
async function targetOf(url: URL, allowPrivate: boolean, deadline: AbortSignal): Promise<Target | { error: string }> {
  const problem = webhookUrlProblem(url.href, allowPrivate);
  if (problem) return { error: problem };
  if (allowPrivate) return { url: url.href };
  let addresses: string[];
  try {
    addresses = await resolved(url.hostname, deadline);
  } catch (error) {
    if (deadline.aborted) throw error;
    return { error: `The webhook's host ${url.hostname} could not be resolved.` };
  }
  const refused = addresses.find(isPrivateAddress);
  if (refused !== undefined || addresses.length === 0) {
    return {
      error: `The webhook's host ${url.hostname} resolves to ${refused ?? "no address"}: loopback, private and link-local addresses are refused.`,
    };
  }
  if (url.protocol === "https:") return { url: url.href };
  const address = addresses[0] as string;
  const pinned = new URL(url.href);
  pinned.hostname = address.includes(":") ? `[${address}]` : address;
  return { url: pinned.href, host: url.host };
}

/** The start of a refusing answer's body, on one line; the rest is never read. */
async function quotedBody(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < QUOTED_BODY_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } finally {
    void reader.cancel().catch(() => {});
  }
  const text = new TextDecoder().decode(Buffer.concat(chunks).subarray(0, QUOTED_BODY_BYTES));
  return text.replace(/\s+/g, " ").trim().slice(0, QUOTED_BODY_CHARS);
}

async function refusal(response: Response): Promise<string> {
  if (response.status >= 300 && response.status < 400) {
    void response.body?.cancel().catch(() => {});
    return `The receiver answered HTTP ${response.status} (a redirect): redirects are not followed, give the final URL.`;
  }
  const quoted = await quotedBody(response);
  return `The receiver answered HTTP ${response.status}${quoted ? `: ${quoted}` : "."}`;
}

/** POSTs `post`, giving up at WEBHOOK_TIMEOUT_MS or when `stopping` aborts. */
export async function sendWebhook(
  post: WebhookPost,
  options: { allowPrivate: boolean; stopping: AbortSignal },
): Promise<SendOutcome> {
  const deadline = AbortSignal.any([AbortSignal.timeout(WEBHOOK_TIMEOUT_MS), options.stopping]);
  try {
    const target = await targetOf(new URL(post.url), options.allowPrivate, deadline);
    if ("error" in target) return { ok: false, error: target.error };
    const headers = { ...post.headers, ...(target.host ? { host: target.host } : {}) };
    const response = await fetch(target.url, {
      method: "POST",
      headers,
      body: post.body,
      redirect: "manual",
      signal: deadline,
    });
    if (response.status >= 200 && response.status < 300) {
      void response.body?.cancel().catch(() => {});
      return { ok: true };
    }
    return { ok: false, error: await refusal(response) };
  } catch (error) {
    if (options.stopping.aborted) return { ok: false, stopped: true };
    if (deadline.aborted)
      return { ok: false, error: `The receiver did not answer within ${WEBHOOK_TIMEOUT_MS / 1000} s.` };
    const reason = error instanceof Error && "code" in error ? ` (${String(error.code)})` : "";
    return { ok: false, error: `The receiver could not be reached${reason}.` };
  }
}
