// YAML read through python3's PyYAML (which .ci/run installs): the
// repository has no YAML parser of its own, and its tests need one only to
// read its own YAML files.
import { spawnSync } from 'node:child_process';

// Exit status 3: PyYAML is missing (a skip). A YAML error is a failure.
const TO_JSON = 'import json, sys\ntry:\n import yaml\nexcept ImportError:\n sys.exit(3)\njson.dump(yaml.safe_load(sys.stdin), sys.stdout, default=str)';

/** `source` parsed, or why it cannot be on this machine ({ skip }). Throws on a YAML error. */
export function parseYaml(source: string): { value: unknown } | { skip: string } {
  const python = spawnSync('python3', ['-c', TO_JSON], { input: source, encoding: 'utf8' });
  if (python.error) return { skip: `python3 is not available (${python.error.message}), and with it PyYAML` };
  if (python.status === 3) return { skip: 'PyYAML is not installed for python3 (apt-get install python3-yaml)' };
  if (python.status !== 0) throw new Error(`not valid YAML: ${python.stderr}`);
  return { value: JSON.parse(python.stdout) };
}
