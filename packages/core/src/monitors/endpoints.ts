// The endpoints a monitor's requests and charges are recorded under (usage rows, the request log), each
// with the name customers read it by: method and path where several methods share a path, the path alone
// for a read (as the catalogue's reads are named), and a webhook delivery, which has no path, by what it is.
export const MONITOR_ENDPOINTS = {
  "monitors.list": "GET /v1/monitors",
  "monitors.create": "POST /v1/monitors",
  "monitors.get": "GET /v1/monitors/{id}",
  "monitors.update": "PATCH /v1/monitors/{id}",
  "monitors.delete": "DELETE /v1/monitors/{id}",
  "monitors.matches": "/v1/monitors/{id}/matches",
  "monitors.stream": "/v1/monitors/{id}/stream",
  "monitors.webhook": "monitor webhook deliveries",
} as const;

export type MonitorEndpoint = keyof typeof MONITOR_ENDPOINTS;

/** A charge's request id, its usage row's: the monitor and the seqs it paid for. */
export function monitorChargeId(monitorId: string, fromSeq: number, throughSeq: number): string {
  return `${monitorId}_${fromSeq}_${throughSeq}`;
}

export const MONITOR_CHARGE_ID_PATTERN = /^mon_[0-9a-f]{16}_\d{1,16}_\d{1,16}$/;
