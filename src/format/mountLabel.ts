// What names a mount beside its mount point, in list_mounts' lines and the
// mounts view: its type, and its device only where that says more. A
// pseudo file system's source is usually its type again ("devtmpfs" on
// devtmpfs, "tmpfs" on tmpfs) or "none", which would read "(devtmpfs,
// devtmpfs)".

/** `device`, unless it is empty, "none" or the type itself: then undefined, as it names nothing the type does not. */
export function meaningfulDevice(fsType: string, device: string): string | undefined {
  return device === '' || device === 'none' || device === fsType ? undefined : device;
}

/** "(ext4, /dev/sda1)", or "(devtmpfs)" where the device is the type again. */
export function mountLabel(fsType: string, device: string): string {
  const shown = meaningfulDevice(fsType, device);
  return shown === undefined ? `(${fsType})` : `(${fsType}, ${shown})`;
}
