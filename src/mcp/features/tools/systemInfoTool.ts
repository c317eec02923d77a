// system_info: the machine the disks belong to.
import { readFileSync } from 'node:fs';
import os from 'node:os';

import { counted } from '../../../format/counted.js';
import { humanSize } from '../../../format/humanSize.js';
import type { Tool } from '../../protocol/tool.js';

/** Memory a new program could use without swapping: MemAvailable on Linux (free(1)'s "available"), else what the OS calls free. */
function availableMemory(): number {
  if (process.platform === 'linux') {
    try {
      const match = /^MemAvailable:\s+(\d+) kB$/m.exec(readFileSync('/proc/meminfo', 'utf8'));
      if (match) return Number(match[1]) * 1024;
    } catch {
      // no /proc: fall through
    }
  }
  return os.freemem();
}

function duration(seconds: number): string {
  const days = Math.floor(seconds / 86400);
  const hours = Math.floor((seconds % 86400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  return `${days > 0 ? `${days}d ` : ''}${hours}h ${minutes}m`;
}

export const systemInfoTool: Tool = {
  name: 'system_info',
  title: 'System information',
  description: 'The host: name, operating system and kernel, uptime, load averages, CPU count, and total and available memory.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  outputSchema: {
    type: 'object',
    properties: {
      hostname: { type: 'string', description: 'Host name' },
      os: { type: 'string', description: 'Operating system, e.g. Linux' },
      kernel: { type: 'string', description: 'Kernel release' },
      arch: { type: 'string', description: 'CPU architecture' },
      uptimeSeconds: { type: 'number', minimum: 0, description: 'Seconds since boot' },
      loadAverage: { type: 'array', items: { type: 'number' }, description: 'Load averages over 1, 5 and 15 minutes (zeros on Windows)' },
      cpus: { type: 'integer', minimum: 1, description: 'Logical CPUs this process may use' },
      memoryTotal: { type: 'integer', minimum: 0, description: 'Memory in bytes' },
      memoryAvailable: { type: 'integer', minimum: 0, description: 'Memory available to new programs in bytes (MemAvailable on Linux)' },
    },
    required: ['hostname', 'os', 'kernel', 'arch', 'uptimeSeconds', 'loadAverage', 'cpus', 'memoryTotal', 'memoryAvailable'],
  },

  async call() {
    const info = {
      hostname: os.hostname(),
      os: os.type(),
      kernel: os.release(),
      arch: os.arch(),
      uptimeSeconds: Math.floor(os.uptime()),
      loadAverage: os.loadavg().map((load) => Math.round(load * 100) / 100),
      cpus: os.availableParallelism(),
      memoryTotal: os.totalmem(),
      memoryAvailable: availableMemory(),
    };
    const text =
      `${info.hostname}: ${info.os} ${info.kernel} (${info.arch}), up ${duration(info.uptimeSeconds)}, ` +
      `load ${info.loadAverage.join(' ')}, ${counted(info.cpus, 'CPU')}, ` +
      `memory ${humanSize(info.memoryAvailable)} available of ${humanSize(info.memoryTotal)}`;
    return { text, structured: info };
  },
};
