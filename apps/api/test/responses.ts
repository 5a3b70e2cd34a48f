// Collects every response body the HTTP tests see, keyed by operation, so a test can validate them all
// against the published OpenAPI document.
export interface RecordedResponse {
  operationId: string | undefined;
  status: number;
  body: unknown;
}

export const recorded: RecordedResponse[] = [];

export async function record(response: Response, operationId?: string): Promise<unknown> {
  const body = await response.json();
  recorded.push({ operationId, status: response.status, body });
  return body;
}
