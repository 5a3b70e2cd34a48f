// A request to paste, written three ways: curl (the query with -G --data-urlencode, so spaces, quotes
// and # in a search survive the shell and the URL), JavaScript fetch and Python requests. The key is
// read from the API_KEY environment variable in each.
import { type Endpoint, pathParamNames } from "@social/core";
import { exampleParams } from "@social/fixtures";

export interface ExampleRequest {
  /** The path with its parameters filled in. */
  path: string;
  query: readonly (readonly [string, string])[];
  headers?: Readonly<Record<string, string>>;
}

/** An endpoint's request with the world's example of each required parameter, and `extra` query ones. */
export function endpointRequest(endpoint: Pick<Endpoint, "path" | "examples">, extra: Record<string, string> = {}) {
  const params = { ...exampleParams(endpoint as Endpoint), ...extra };
  const inPath = new Set(pathParamNames(endpoint.path));
  let path = endpoint.path;
  for (const name of inPath) path = path.replace(`{${name}}`, encodeURIComponent(params[name] ?? ""));
  return { path, query: Object.entries(params).filter(([name]) => !inPath.has(name)) } satisfies ExampleRequest;
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

export function curlCommand(baseUrl: string, request: ExampleRequest): string {
  const lines = [`curl ${request.query.length > 0 ? "-G " : ""}"${baseUrl}${request.path}"`];
  lines.push(`-H "Authorization: Bearer $API_KEY"`);
  for (const [name, value] of Object.entries(request.headers ?? {}))
    lines.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  for (const [name, value] of request.query) lines.push(`--data-urlencode ${shellQuote(`${name}=${value}`)}`);
  return lines.join(" \\\n  ");
}

export function fetchCode(baseUrl: string, request: ExampleRequest): string {
  const sets = request.query.map(
    ([name, value]) => `url.searchParams.set(${JSON.stringify(name)}, ${JSON.stringify(value)});\n`,
  );
  const headerText = [
    `Authorization: \`Bearer \${process.env.API_KEY}\``,
    ...Object.entries(request.headers ?? {}).map(
      ([name, value]) => `${JSON.stringify(name)}: ${JSON.stringify(value)}`,
    ),
  ].join(", ");
  return `const url = new URL(${JSON.stringify(baseUrl + request.path)});
${sets.join("")}const response = await fetch(url, { headers: { ${headerText} } });
console.log(response.status, await response.json());`;
}

function pythonString(text: string): string {
  return JSON.stringify(text);
}

export function pythonCode(baseUrl: string, request: ExampleRequest): string {
  const params = request.query.map(([name, value]) => `${pythonString(name)}: ${pythonString(value)}`).join(", ");
  const headers = [
    `"Authorization": "Bearer " + os.environ["API_KEY"]`,
    ...Object.entries(request.headers ?? {}).map(([name, value]) => `${pythonString(name)}: ${pythonString(value)}`),
  ].join(", ");
  return `import os, requests

response = requests.get(
    ${pythonString(baseUrl + request.path)},
    params={${params}},
    headers={${headers}},
)
print(response.status_code, response.json())`;
}
