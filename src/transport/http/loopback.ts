// Which names and addresses are loopback. In a module of its own, apart from
// access.ts: the command line asks it of --auth-issuer, and every command
// parses its command line, so what this imports is loaded at every start
// (node:crypto and node:net, through access.ts, cost `diskprobe df` about
// 7 ms of each run: issue 27).

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

// An IPv4 address in dotted-quad form, as node:net's isIP tells one
// (IPv4Reg in Node's lib/internal/net.js): four decimal bytes, no leading
// zeros. test/transport/http/loopback.test.ts checks that the two agree.
const V4_BYTE = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])';
const IPV4 = new RegExp(`^(?:${V4_BYTE}\\.){3}${V4_BYTE}$`);

/**
 * Whether `name` is an IPv4 address, as `isIP(name) === 4` from node:net says.
 * @internal exported for the tests
 */
export function isIPv4(name: string): boolean {
  return IPV4.test(name);
}

/** Whether an address or name to listen on is loopback: localhost, 127.0.0.0/8, ::1. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (bare === 'localhost' || bare === '::1') return true;
  return isIPv4(bare) && bare.startsWith('127.');
}

/** Whether a host name from a Host or Origin header (lower-cased, brackets kept) names loopback. */
export function isLoopbackName(name: string): boolean {
  return LOOPBACK_NAMES.has(name) || (isIPv4(name) && name.startsWith('127.'));
}
