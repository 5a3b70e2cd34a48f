// What the dashboard's monitor tests share: a monitor made through the port for a signed-in customer, and
// the text of the list's row of a monitor.
import { MONITOR_LIMITS, type Monitor, type MonitorDelivery, newMonitorId, newMonitorSecret } from "@social/core";
import { type Customer, newKey } from "./dashboard-harness.ts";

export async function monitorOf(
  you: Customer,
  name: string,
  delivery: MonitorDelivery = { type: "webhook", url: "https://hooks.example/in" },
): Promise<Monitor> {
  const { id: keyId } = await newKey(you, `${name} key`);
  const created = await you.dashboard.monitors.create(
    {
      id: newMonitorId(),
      accountId: you.accountId,
      keyId,
      name,
      query: "#coffee lang:en",
      delivery,
      dailyCreditCap: 500,
      secret: newMonitorSecret(),
      now: Date.now(),
    },
    MONITOR_LIMITS.perAccount,
  );
  if (!created.ok) throw new Error("not created");
  return created.monitor;
}

/** The text of the list's row of `name`, tags dropped. */
export function rowOf(page: string, name: string): string {
  const row =
    page
      .split("<tr>")
      .find((part) => part.includes(`>${name}</a>`))
      ?.split("</tr>")[0] ?? "";
  return row
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}
