// User names by uid, from /etc/passwd: what lsof and ps show. Node has no
// getpwuid, and a name is only a label here: a uid /etc/passwd does not
// name (LDAP, a container's own users) is shown as its number.
import { readFileSync } from 'node:fs';

export function userNames(): (uid: number) => string {
  const names = new Map<number, string>();
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const [name, , uid] = line.split(':');
      if (name && uid !== undefined && !names.has(Number(uid))) names.set(Number(uid), name);
    }
  } catch {
    // No /etc/passwd: numbers it is.
  }
  return (uid) => names.get(uid) ?? String(uid);
}
