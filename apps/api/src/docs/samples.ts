// Each endpoint's sample response on /docs: the world's example request, read once from the store the
// server runs on, with lists cut to their first items so the page stays short. An endpoint whose
// example this world does not hold (an imported world) shows no sample rather than a wrong one.
import { catalogue, costOf, costRuleFor, plainData, type Store, successEnvelope } from "@social/core";
import { exampleParams } from "@social/fixtures";
import { exampleRead } from "../site/example-read.ts";

const ITEMS_SHOWN = 2;
const SAMPLE_BALANCE = 1000;

function shortened(value: unknown): unknown {
  if (Array.isArray(value)) return value.slice(0, ITEMS_SHOWN).map(shortened);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, shortened(item)]));
  }
  return value;
}

/** The sample envelope of each endpoint by id. */
export async function sampleResponses(store: Store): Promise<Map<string, unknown>> {
  const samples = new Map<string, unknown>();
  for (const endpoint of catalogue) {
    const answer = await exampleRead(endpoint, store, exampleParams(endpoint)).catch(() => undefined);
    if (!answer) continue;
    const data = shortened(plainData(answer.data));
    const charged = costOf(costRuleFor(endpoint, answer.params), endpoint.counted(data));
    samples.set(endpoint.id, successEnvelope(data, "req_example", { charged, remaining: SAMPLE_BALANCE - charged }));
  }
  return samples;
}
