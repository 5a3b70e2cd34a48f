// One read run as a customer's request would run it, without a key or a charge: what the demo shows
// and what /docs gives as each endpoint's sample response, with what the request would have cost.
import { costOf, costRuleFor, type Endpoint, runRead, type Store, validateParams } from "@social/core";

export interface ExampleAnswer {
  endpoint: Endpoint;
  /** The parameters as validated, defaults filled in. */
  params: Record<string, unknown>;
  data: unknown;
  /** The credits the same request sent with a key is charged. */
  cost: number;
}

export async function exampleRead(
  endpoint: Endpoint,
  store: Store,
  raw: Record<string, unknown>,
): Promise<ExampleAnswer> {
  const params = validateParams(endpoint, raw);
  const size = endpoint.pageSize?.(params) ?? 0;
  const result = await runRead(endpoint, store, params, { size });
  return {
    endpoint,
    params,
    data: result.data,
    cost: costOf(costRuleFor(endpoint, params), endpoint.counted(result.data)),
  };
}
