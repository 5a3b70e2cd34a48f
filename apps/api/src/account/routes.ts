// GET /v1/account and /v1/usage: the free account reads (core's account-reads.ts), authenticated and
// rate-limited like every request, in the same envelope, never charged and never cached.
import {
  accountReads,
  bearerKey,
  calledAs,
  decodeParams,
  executeAccountRead,
  rateHeaders,
  rateLimitError,
  requestTarget,
  successEnvelopeText,
} from "@social/core";
import { Elysia } from "elysia";
import type { HttpContext } from "../http/context.ts";
import { errorResponse, jsonText } from "../http/respond.ts";
import { refuseMethods } from "../v1/routes.ts";
import { usageCsv, usageFileName, wantsCsv } from "./usage-csv.ts";

const NO_NUMERIC_PARAMS: ReadonlySet<string> = new Set();

export function accountRoutes(context: HttpContext) {
  const routes = new Elysia({ name: "account" }).use(context);
  for (const read of accountReads) {
    const refuse = refuseMethods(read.path);
    routes.head(read.path, refuse);
    routes.get(read.path, async ({ request, requestId, receivedAt, anonymousRate, services, helpLinks }) => {
      const { values, repeated } = decodeParams(requestTarget(request.url).query, NO_NUMERIC_PARAMS);
      const outcome = await executeAccountRead(services, {
        read,
        params: values,
        repeated,
        apiKey: bearerKey(request),
        requestId,
        receivedAt,
        call: calledAs(request.url),
      });
      const rate = outcome.rate ?? (await anonymousRate());
      // A balance is private and changes with every charge: no cache may keep it.
      const headers = { "x-request-id": requestId, "cache-control": "no-store", ...rateHeaders(rate) };
      if (!outcome.ok) {
        return errorResponse(rate.allowed ? outcome.error : rateLimitError(rate), requestId, helpLinks, headers);
      }
      if (read.id === "usage" && wantsCsv(values.format, request.headers.get("accept"))) {
        const data = outcome.data as Parameters<typeof usageCsv>[0];
        return new Response(usageCsv(data), {
          headers: {
            "content-type": "text/csv; charset=utf-8",
            "content-disposition": `attachment; filename="${usageFileName(data)}"`,
            ...headers,
          },
        });
      }
      return jsonText(successEnvelopeText(outcome.data, requestId, outcome.credits), 200, headers);
    });
    routes.all(read.path, refuse);
  }
  return routes;
}
