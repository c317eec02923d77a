// An errno as glibc's strerror() words it in the C locale, for messages that
// read as GNU tools' own ("du: cannot access 'x': Permission denied"). Node
// names errnos (os.constants.errno) but words them as libuv does, in lower
// case; the words here are glibc's. The ones a directory walk can meet.
import { constants } from 'node:os';

const TEXT: Readonly<Record<string, string>> = {
  EPERM: 'Operation not permitted',
  ENOENT: 'No such file or directory',
  EINTR: 'Interrupted system call',
  EIO: 'Input/output error',
  ENXIO: 'No such device or address',
  EBADF: 'Bad file descriptor',
  EAGAIN: 'Resource temporarily unavailable',
  ENOMEM: 'Cannot allocate memory',
  EACCES: 'Permission denied',
  EFAULT: 'Bad address',
  EBUSY: 'Device or resource busy',
  ENODEV: 'No such device',
  ENOTDIR: 'Not a directory',
  EISDIR: 'Is a directory',
  EINVAL: 'Invalid argument',
  ENFILE: 'Too many open files in system',
  EMFILE: 'Too many open files',
  EFBIG: 'File too large',
  ENOSPC: 'No space left on device',
  EROFS: 'Read-only file system',
  EMLINK: 'Too many links',
  EDEADLK: 'Resource deadlock avoided',
  ENAMETOOLONG: 'File name too long',
  ENOLCK: 'No locks available',
  ENOSYS: 'Function not implemented',
  ELOOP: 'Too many levels of symbolic links',
  ENODATA: 'No data available',
  ETIME: 'Timer expired',
  ENOLINK: 'Link has been severed',
  EPROTO: 'Protocol error',
  EOVERFLOW: 'Value too large for defined data type',
  EILSEQ: 'Invalid or incomplete multibyte or wide character',
  EOPNOTSUPP: 'Operation not supported',
  ECONNABORTED: 'Software caused connection abort',
  ECONNRESET: 'Connection reset by peer',
  ENOTCONN: 'Transport endpoint is not connected',
  ETIMEDOUT: 'Connection timed out',
  ECONNREFUSED: 'Connection refused',
  EHOSTUNREACH: 'No route to host',
  ESTALE: 'Stale file handle',
  EDQUOT: 'Disk quota exceeded',
  ECANCELED: 'Operation canceled',
};

/** Linux errnos Node has no name for, with glibc's words. */
const LINUX_ONLY: Readonly<Record<number, string>> = {
  70: 'Communication error on send',
  112: 'Host is down',
  117: 'Structure needs cleaning',
  121: 'Remote I/O error',
  123: 'No medium found',
};

const nameOf = new Map<number, string>();
for (const [name, value] of Object.entries(constants.errno)) if (!nameOf.has(value)) nameOf.set(value, name);

/** strerror(errno) as glibc says it; "Unknown error N" as glibc says that too. */
export function strerror(errno: number): string {
  const name = nameOf.get(errno);
  const text = (name && TEXT[name]) ?? (process.platform === 'linux' ? LINUX_ONLY[errno] : undefined);
  return text ?? `Unknown error ${errno}`;
}
