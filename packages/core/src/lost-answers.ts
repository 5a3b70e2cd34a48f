// Nobody pays for an answer that does not reach them. A surface says an answer is lost by aborting the
// request's signal: before the debit the read is then not charged, right after it the pipeline refunds
// before answering, and from then on, whenever the signal aborts (the answer could not be written), the
// charge is refunded here. The refund is a grant naming the request, so the request log shows it as
// never delivered. An answer stored for Idempotency-Key retries is not refunded: a retry with the key
// gets it again, uncharged, so the one charge pays for it once.
import type { Ledger } from "./ports/ledger.ts";

/**
 * Refunds the charge of `requestId` if `signal` aborts after the pipeline answered. Nothing waits for
 * it, so a refund that fails (the database went away) is logged, not thrown.
 */
export function refundIfLost(ledger: Ledger, signal: AbortSignal, accountId: string, requestId: string): void {
  const refund = () =>
    ledger.refund(accountId, requestId).catch((error: unknown) => {
      console.error(JSON.stringify({ level: "error", kind: "refund_failed", requestId, error: String(error) }));
    });
  signal.addEventListener("abort", () => void refund(), { once: true });
}
