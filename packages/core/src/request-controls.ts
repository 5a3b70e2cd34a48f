// What a caller may say about any charged request besides the endpoint's own parameters: the most it
// is willing to pay (max_credits, or the X-Max-Credits header) and that it only wants the price
// (dry_run). They are read apart from the endpoint's parameters so that every surface offers them on
// every entry without the catalogue restating them.
import * as v from "valibot";

/** Far above any request's cost, and small enough to stay an exact integer everywhere. */
export const MAX_CREDITS_CAP = 1_000_000_000;
/** The header that carries max_credits for clients that cannot add parameters (X API v2 client code). */
export const MAX_CREDITS_HEADER = "x-max-credits";

const capRule = `must be an integer from 1 to ${MAX_CREDITS_CAP}`;

export const CONTROL_PARAMS = {
  max_credits: v.optional(
    v.pipe(
      v.number(capRule),
      v.integer(capRule),
      v.minValue(1, capRule),
      v.maxValue(MAX_CREDITS_CAP, capRule),
      v.description(
        "The most this request may cost. A page is shortened to what it covers (meta.credits.capped: true) and its next_token continues right after the last item returned; a cap below the smallest useful answer is 400, uncharged.",
      ),
    ),
  ),
  dry_run: v.optional(
    v.pipe(
      v.boolean("must be true or false"),
      v.description(
        "true: validate the request and answer, free and without reading, the most it can cost (meta.credits.max) and the rule.",
      ),
    ),
  ),
};

export type ControlName = keyof typeof CONTROL_PARAMS;
export const ControlsSchema = v.strictObject(CONTROL_PARAMS);
export type RequestControls = v.InferOutput<typeof ControlsSchema>;

export function isControlName(name: string): name is ControlName {
  return Object.hasOwn(CONTROL_PARAMS, name);
}

/**
 * A control's value from URL text: max_credits as a number when it is one (anything else stays text
 * and fails the schema with its rule), dry_run true or false.
 */
export function decodeControl(name: ControlName, text: string): unknown {
  if (name === "max_credits") return /^\d{1,10}$/.test(text) ? Number(text) : text;
  return text === "true" ? true : text === "false" ? false : text;
}

/** Splits a record of arguments (MCP) into the endpoint's parameters and the controls. */
export function separateControls(args: Record<string, unknown>): {
  params: Record<string, unknown>;
  controls: Record<string, unknown>;
} {
  const params: Record<string, unknown> = Object.create(null);
  const controls: Record<string, unknown> = Object.create(null);
  for (const [name, value] of Object.entries(args)) (isControlName(name) ? controls : params)[name] = value;
  return { params, controls };
}

/**
 * Splits a URL's query into the endpoint's entries and the decoded controls, with the X-Max-Credits
 * header's value as max_credits. A control given twice (in the query, or in both places) is repeated.
 */
export function takeQueryControls(
  query: Iterable<[string, string]>,
  maxCreditsHeader: string | null,
): { entries: [string, string][]; controls: Record<string, unknown>; repeated: string[] } {
  const entries: [string, string][] = [];
  const controls: Record<string, unknown> = Object.create(null);
  const repeated: string[] = [];
  const given: [ControlName, string][] = maxCreditsHeader === null ? [] : [["max_credits", maxCreditsHeader]];
  for (const [name, text] of query) {
    if (isControlName(name)) given.push([name, text]);
    else entries.push([name, text]);
  }
  for (const [name, text] of given) {
    if (Object.hasOwn(controls, name)) repeated.push(name);
    else controls[name] = decodeControl(name, text);
  }
  return { entries, controls, repeated };
}
