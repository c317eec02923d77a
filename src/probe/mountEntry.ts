import type { Mount } from './types.js';

/** A mount as the table describes it, with what is needed to match paths to it. */
export interface MountEntry extends Mount {
  /** major × 2^20 + minor of the mounted device (Linux), or NaN where unknown. */
  readonly deviceKey: number;
  /** The directory of the device mounted here: "/" unless it is a bind mount of a subdirectory. */
  readonly root: string;
  /** Mounted from a network server. */
  readonly remote: boolean;
  /** The kernel's id of this mount (mountinfo's first field; Linux), or NaN. */
  readonly mountId: number;
  /** The id of the mount it is mounted on (mountinfo's second field; Linux), or NaN. */
  readonly parentId: number;
  /**
   * Whether the file system answers statfs from memory, never from a device
   * or a server: a cached path beneath it can be probed inline (Linux).
   */
  readonly answersFromMemory: boolean;
}
