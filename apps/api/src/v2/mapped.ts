// The /2 paths: every catalogue entry that carries a /2 mapping, with the mapping beside it.
import { catalogue, type Endpoint, type LookupList, lookupListOf, pathParamNames, type V2Mapping } from "@social/core";

export interface V2Route {
  /** The /v1 entry whose read, validation and cost the /2 path reuses. */
  endpoint: Endpoint;
  v2: V2Mapping;
  /** The parameter of a lookup of one id or username: X API v2 answers a missing one with 200 and `errors`. */
  lookupParam?: string;
  /** The parameter of a lookup of many ids or usernames: the ones not found are listed in `errors`. */
  lookupList?: LookupList;
}

function lookupParam(v2: V2Mapping): string | undefined {
  const [name, ...others] = pathParamNames(v2.path);
  return !v2.maxResults && others.length === 0 ? name : undefined;
}

export const V2_ROUTES: readonly V2Route[] = catalogue.flatMap((endpoint) => {
  if (!endpoint.v2) return [];
  const param = lookupParam(endpoint.v2);
  const list = lookupListOf(endpoint);
  return [
    { endpoint, v2: endpoint.v2, ...(param ? { lookupParam: param } : {}), ...(list ? { lookupList: list } : {}) },
  ];
});
