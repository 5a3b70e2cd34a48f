// The call a new key is shown with: a recent search for the world's example query, written as a curl
// that survives any query (-G with --data-urlencode, so spaces and operators need no escaping).
import { endpointsById, pathParamNames } from "@social/core";
import { exampleParams } from "@social/fixtures";

const FIRST_ENDPOINT = "search_recent";

/** A shell word in single quotes, quotes inside it closed and reopened. */
function shellWord(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The endpoint and parameters of the first call, as /docs shows them. */
export function firstCall(): { path: string; params: Record<string, string> } {
  const endpoint = endpointsById.get(FIRST_ENDPOINT);
  if (!endpoint || pathParamNames(endpoint.path).length > 0)
    throw new Error(`${FIRST_ENDPOINT} takes no path parameter`);
  return { path: endpoint.path, params: exampleParams(endpoint) };
}

export function firstCallCurl(publicUrl: string, key: string): string {
  const { path, params } = firstCall();
  const data = Object.entries(params).map(([name, value]) => ` --data-urlencode ${shellWord(`${name}=${value}`)}`);
  return `curl -G -H ${shellWord(`Authorization: Bearer ${key}`)}${data.join("")} ${shellWord(`${publicUrl}${path}`)}`;
}
