// What every surface reads off an incoming request the same way: the caller's key and a request id.

/** The API key of an `Authorization: Bearer <key>` header; anything else counts as no key. */
export function bearerKey(request: Request): string | undefined {
  return request.headers.get("authorization")?.match(/^Bearer[ ]+(\S+)[ ]*$/i)?.[1];
}

export function newRequestId(): string {
  return `req_${crypto.randomUUID().replaceAll("-", "")}`;
}
