// The tools the server offers, a line each: a new tool is its own file here
// plus one line below. The local ones are always offered; the fleet ones
// only with a Prometheus to ask (serve --prometheus), which each is made for.
import type { Tool } from '../../protocol/tool.js';
import { directoryUsageTool } from './directoryUsageTool.js';
import { diskFillForecastTool } from './diskFillForecastTool.js';
import { diskUsageTool } from './diskUsageTool.js';
import { explainDiskUsageTool } from './explainDiskUsageTool.js';
import { fleetDiskUsageTool } from './fleetDiskUsageTool.js';
import type { Fleet } from './fleetQuery.js';
import { listMountsTool } from './listMountsTool.js';
import { systemInfoTool } from './systemInfoTool.js';

/** What this machine's disks answer, in the order tools/list shows them. */
export const LOCAL_TOOLS: readonly Tool[] = [diskUsageTool, listMountsTool, directoryUsageTool, explainDiskUsageTool, systemInfoTool];

/** What the fleet's Prometheus answers, after the local tools. */
export const FLEET_TOOLS: readonly ((fleet: Fleet) => Tool)[] = [fleetDiskUsageTool, diskFillForecastTool];
