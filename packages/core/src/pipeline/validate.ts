// A request's parameters and controls validated against its schemas: invalid_request names each broken
// rule, and the parameters a page token is bound to, in one canonical form.
import * as v from "valibot";
import type { Endpoint, ParamsSchema } from "../endpoint.ts";
import { type ApiError, type ErrorDetail, invalidRequest } from "../errors.ts";
import { canonicalEntries } from "../params.ts";
import { ControlsSchema, type RequestControls } from "../request-controls.ts";

/** Parameters that do not change what a page holds, so a token stays valid when they change. */
const UNBOUND_PARAMS = new Set(["next_token", "limit"]);

/** The validated parameters a pagination token is bound to, in a canonical text form. */
export function tokenBinding(params: Record<string, unknown>): string {
  return JSON.stringify(canonicalEntries(params, UNBOUND_PARAMS));
}

function issueDetails(issues: readonly v.BaseIssue<unknown>[]): ErrorDetail[] {
  return issues.map((issue) => {
    const parameter = issue.path?.map((item) => String(item.key)).join(".");
    return parameter ? { parameter, message: issue.message } : { message: issue.message };
  });
}

export function validationError(details: readonly ErrorDetail[]): ApiError {
  const summary = details.map((d) => (d.parameter ? `${d.parameter} ${d.message}` : d.message)).join("; ");
  return invalidRequest(`Invalid request: ${summary}`, [...details]);
}

/** Validates decoded parameters against an endpoint's schema; invalid_request names each broken rule. */
export function validateParams(
  endpoint: Endpoint,
  params: Record<string, unknown>,
  repeated: readonly string[] = [],
): Record<string, unknown> {
  return parseWith(endpoint.params, params, repeated);
}

/** Validates decoded parameters against a parameters schema; invalid_request names each broken rule. */
export function parseWith(
  schema: ParamsSchema,
  params: Record<string, unknown>,
  repeated: readonly string[] = [],
): Record<string, unknown> {
  return parseParams(schema, params, repeated).params;
}

export function parseParams(
  schema: ParamsSchema,
  params: Record<string, unknown>,
  repeated: readonly string[],
  controls: Record<string, unknown> = {},
): { params: Record<string, unknown>; controls: RequestControls } {
  const repeatedDetails = repeated.map((name) => ({ parameter: name, message: "must be given only once" }));
  const result = v.safeParse(schema, params, { abortPipeEarly: true });
  const parsedControls = v.safeParse(ControlsSchema, controls, { abortPipeEarly: true });
  const details = [
    ...repeatedDetails,
    ...(result.success ? [] : issueDetails(result.issues)),
    ...(parsedControls.success ? [] : issueDetails(parsedControls.issues)),
  ];
  if (details.length > 0 || !result.success || !parsedControls.success) throw validationError(details);
  return { params: result.output as Record<string, unknown>, controls: parsedControls.output };
}
