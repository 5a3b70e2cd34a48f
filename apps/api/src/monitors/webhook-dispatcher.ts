// Every serving process runs one dispatcher: it claims webhook monitors with a delivery due (a lease in
// the database, so that any number of processes deliver each batch once), delivers up to CONCURRENCY of
// them at a time, one batch per claim, and claims again as each finishes; with nothing due it looks
// again every IDLE_MS. Stopping gives up the POSTs in flight (their monitors stay due for any process)
// and waits for the rest of their work, so that a charge begun is settled before the database closes.
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Monitor, WebhookAttempt } from "@social/core";
import { attemptDelivery, type DeliveryDeps } from "./webhook-delivery.ts";

/** Deliveries in flight in one process. */
const CONCURRENCY = 8;
/** How often a process with nothing to deliver asks whether something is due. */
const IDLE_MS = 1_000;
/** A claim outlasts its attempt (a 10 s POST, the lookup and the charge); a process that dies leaves it to expire. */
export const LEASE_MS = 60_000;
/** When a monitor whose attempt failed on our side (the database) is tried again. */
const OUR_FAILURE_RETRY_MS = 5_000;

/** What each delivery needs, less what the dispatcher makes itself (its lease owner, its stop signal). */
export interface WebhookDispatcherOptions extends Omit<DeliveryDeps, "owner" | "stopping"> {
  warn: (message: string) => void;
}

export interface WebhookDispatcher {
  stop(): Promise<void>;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function startWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const owner = `${hostname()}/${process.pid}/${randomUUID()}`;
  const stopping = new AbortController();
  const deps: DeliveryDeps = { ...options, owner, stopping: stopping.signal };
  const { monitors } = options.billing;
  const inFlight = new Set<Promise<void>>();
  let wake: (() => void) | undefined;

  async function deliver(monitor: Monitor): Promise<void> {
    let attempt: WebhookAttempt;
    try {
      attempt = await attemptDelivery(deps, monitor);
    } catch (error) {
      options.warn(`webhook delivery of ${monitor.id} failed on our side: ${messageOf(error)}`);
      attempt = { outcome: "waiting", nextAttemptAt: options.clock() + OUR_FAILURE_RETRY_MS };
    }
    // A process that cannot record it leaves the lease to expire: the monitor is delivered later.
    await monitors.finishWebhook(monitor.id, owner, attempt).catch((error: unknown) => {
      options.warn(`webhook delivery of ${monitor.id} could not be recorded: ${messageOf(error)}`);
    });
  }

  /** Claims what free slots allow; whether every slot found work (so more may be due at once). */
  async function fill(): Promise<boolean> {
    const free = CONCURRENCY - inFlight.size;
    if (free <= 0) return false;
    const claimed = await monitors.claimWebhooks(owner, options.clock(), LEASE_MS, free);
    for (const monitor of claimed) {
      const delivery: Promise<void> = deliver(monitor).finally(() => {
        inFlight.delete(delivery);
        wake?.();
      });
      inFlight.add(delivery);
    }
    return claimed.length === free;
  }

  /** Until IDLE_MS pass, a delivery finishes, or the dispatcher stops. */
  function pause(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, IDLE_MS);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });
  }

  // Said once when claiming starts failing (the database away) and once when it works again, not every IDLE_MS.
  let claimsFailing = false;
  const loop = (async () => {
    while (!stopping.signal.aborted) {
      let busy = false;
      try {
        busy = await fill();
        if (claimsFailing) options.warn("webhook deliveries can be claimed again");
        claimsFailing = false;
      } catch (error) {
        if (!claimsFailing) options.warn(`webhook deliveries cannot be claimed: ${messageOf(error)}`);
        claimsFailing = true;
      }
      if (!busy && !stopping.signal.aborted) await pause();
    }
  })();

  return {
    async stop() {
      stopping.abort();
      wake?.();
      await loop;
      await Promise.all([...inFlight]);
    },
  };
}
