// What a client learns from one HTTP answer of /v1 or /2, and every way that answer can break the
// contract: a 5xx, a body that is not the envelope, an error code that does not match its status, a
// missing request id, or a 402 for a request the balance actually covered.
import { type CreditRefusal, ERROR_STATUS, type ErrorCode } from "@social/core";

export interface Answer {
  status: number;
  requestId: string;
  /** Credits the answer says were charged: meta.credits.charged on /v1, x-credits-charged on /2. */
  charged: number;
  errorCode?: string;
  /** Whose credits a 402 found short: the account's balance, or the key's own limit. */
  refusal?: "balance" | "key_limit";
  nextToken?: string;
  /** Broken promises, as sentences; empty when the answer keeps the contract. */
  problems: string[];
}

interface Body {
  meta?: { credits?: { charged?: unknown }; next_token?: unknown; pagination?: { next_token?: unknown } };
  error?: { code?: unknown; message?: unknown; request_id?: unknown; details?: unknown };
}

/** A 402's details on /v1 and /2: what the request cost, and what the balance or the key's limit left. */
function refusalDetails(body: Body): Partial<CreditRefusal> {
  const details = body.error?.details;
  return typeof details === "object" && details !== null && !Array.isArray(details) ? details : {};
}

function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === "string" && Object.hasOwn(ERROR_STATUS, code);
}

function chargedOf(response: Response, body: Body): number {
  const header = response.headers.get("x-credits-charged");
  if (header !== null) return Number(header);
  const charged = body.meta?.credits?.charged;
  return typeof charged === "number" ? charged : 0;
}

function errorProblems(status: number, body: Body, requestId: string): string[] {
  const error = body.error;
  if (!error || !isErrorCode(error.code)) return [`${status} without the error envelope`];
  const problems: string[] = [];
  if (ERROR_STATUS[error.code] !== status) problems.push(`${status} carries code ${error.code}`);
  if (error.request_id !== requestId) problems.push(`${status}: body request id differs from x-request-id`);
  // "Never clamped": a refused request must really cost more than the balance it found.
  const { required, remaining } = refusalDetails(body);
  if (error.code === "insufficient_credits" && !(Number(required) > Number(remaining))) {
    problems.push(`402 for a request the balance covered: ${String(error.message)}`);
  }
  return problems;
}

function refusalOf(body: Body): "balance" | "key_limit" {
  return refusalDetails(body).reason === "key_limit" ? "key_limit" : "balance";
}

/** Reads the whole answer; never throws for a bad body, which is reported as a problem instead. */
export async function readAnswer(response: Response): Promise<Answer> {
  const { status } = response;
  const requestId = response.headers.get("x-request-id") ?? "";
  const text = await response.text();
  let body: Body = {};
  const problems: string[] = [];
  try {
    body = JSON.parse(text) as Body;
  } catch {
    problems.push(`${status} with a body that is not JSON: ${text.slice(0, 80)}`);
  }
  if (status >= 500) problems.push(`${status} ${text.slice(0, 200)}`);
  if (!requestId) problems.push(`${status} without x-request-id`);
  if (status >= 400) problems.push(...errorProblems(status, body, requestId));
  const charged = chargedOf(response, body);
  if (status !== 200 && charged !== 0) problems.push(`${status} reported a charge of ${charged}`);
  const token = body.meta?.pagination?.next_token ?? body.meta?.next_token;
  return {
    status,
    requestId,
    charged,
    ...(typeof body.error?.code === "string" ? { errorCode: body.error.code } : {}),
    ...(status === 402 ? { refusal: refusalOf(body) } : {}),
    ...(typeof token === "string" ? { nextToken: token } : {}),
    problems,
  };
}
