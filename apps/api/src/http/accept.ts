// Content negotiation for the pages that are also JSON (the demo): a browser names text/html in Accept;
// a program that names JSON as highly, or names no text/html at all, gets JSON.

/** The quality the Accept header gives `type` itself (not through a wildcard); 0 when it is not named. */
function quality(accept: string, type: string): number {
  let best = 0;
  for (const range of accept.split(",")) {
    const [name = "", ...parameters] = range.split(";").map((part) => part.trim().toLowerCase());
    if (name !== type) continue;
    const q = parameters.find((parameter) => parameter.startsWith("q="));
    const value = q === undefined ? 1 : Number(q.slice(2));
    if (Number.isFinite(value)) best = Math.max(best, value);
  }
  return best;
}

/** Whether the client asked for HTML over JSON. */
export function prefersHtml(request: Request): boolean {
  const accept = request.headers.get("accept") ?? "";
  const html = quality(accept, "text/html");
  return html > 0 && html > quality(accept, "application/json");
}
