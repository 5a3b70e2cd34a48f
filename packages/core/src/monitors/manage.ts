// An account's monitors as its keys manage them (/v1/monitors, MCP list_monitors): created under the
// calling key, at most MONITOR_LIMITS.perAccount of them, another account's never seen. Managing is
// free: nothing here charges.
import { invalidRequest } from "../errors.ts";
import type { Monitors } from "../ports/monitors.ts";
import { MONITOR_LIMITS, newMonitorId, newMonitorSecret } from "./model.ts";
import {
  type MonitorSettingsOptions,
  monitorChanges,
  monitorIdOf,
  newMonitorSettings,
  noSuchMonitor,
} from "./settings.ts";
import { type MonitorView, monitorView } from "./view.ts";

/** Who manages: the account, and the key whose charges a monitor it creates makes. */
export interface MonitorOwner {
  accountId: string;
  keyId: string;
}

export async function createMonitor(
  monitors: Monitors,
  owner: MonitorOwner,
  body: unknown,
  options: MonitorSettingsOptions,
  now: number,
): Promise<MonitorView> {
  const settings = newMonitorSettings(body, options);
  const created = await monitors.create(
    { id: newMonitorId(), ...owner, ...settings, secret: newMonitorSecret(), now },
    MONITOR_LIMITS.perAccount,
  );
  if (!created.ok) {
    const message = `An account holds at most ${MONITOR_LIMITS.perAccount} monitors: delete one (DELETE /v1/monitors/{id}) before creating another`;
    throw invalidRequest(message, [{ message }]);
  }
  return monitorView(created.monitor, now);
}

/** The account's monitors, oldest first; an agent's list leaves the webhook secrets out. */
export async function listMonitors(
  monitors: Monitors,
  accountId: string,
  now: number,
  options: { secret: boolean } = { secret: true },
): Promise<MonitorView[]> {
  return (await monitors.list(accountId)).map((monitor) => monitorView(monitor, now, options));
}

export async function showMonitor(monitors: Monitors, accountId: string, id: string, now: number) {
  const monitor = await monitors.get(accountId, monitorIdOf(id));
  if (!monitor) throw noSuchMonitor(id);
  return monitorView(monitor, now);
}

export async function updateMonitor(
  monitors: Monitors,
  accountId: string,
  id: string,
  body: unknown,
  options: MonitorSettingsOptions,
  now: number,
): Promise<MonitorView> {
  const monitorId = monitorIdOf(id);
  const changes = monitorChanges(body, options);
  const monitor = await monitors.update(accountId, monitorId, changes, now);
  if (!monitor) throw noSuchMonitor(id);
  return monitorView(monitor, now);
}

export async function deleteMonitor(monitors: Monitors, accountId: string, id: string) {
  const monitorId = monitorIdOf(id);
  if (!(await monitors.remove(accountId, monitorId))) throw noSuchMonitor(id);
  return { id: monitorId, deleted: true as const };
}
