// .github/workflows/prebuild.yml cannot run here (macOS, Windows and arm64
// runners), so its shape is checked instead: it builds the 8 targets, every
// build job tests its own prebuild with PREBUILDS_ONLY=1, and the merge job
// waits for all of them. YAML is read by Python's PyYAML (no YAML parser is
// among the package's dependencies); without it the suite skips, saying so.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { announceSkip, projectRoot } from '../helpers/system.js';

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, string | boolean>;
}
interface Job {
  name?: string;
  'runs-on': string;
  needs?: string | string[];
  strategy?: { matrix: { include?: Array<Record<string, string>> } };
  steps: Step[];
}
interface Workflow {
  env?: Record<string, string>;
  jobs: Record<string, Job>;
}

const source = readFileSync(join(projectRoot, '.github/workflows/prebuild.yml'), 'utf8');
// Exit status 3: PyYAML is missing (a skip). A YAML error is a failure (below).
const toJson = 'import json, sys\ntry:\n import yaml\nexcept ImportError:\n sys.exit(3)\njson.dump(yaml.safe_load(sys.stdin), sys.stdout, default=str)';
const python = spawnSync('python3', ['-c', toJson], { input: source, encoding: 'utf8' });
const skipReason = python.error
  ? `python3 is not available (${python.error.message}), and with it PyYAML`
  : python.status === 3
    ? 'PyYAML is not installed for python3 (pip install pyyaml)'
    : undefined;
const workflow = (skipReason === undefined && python.status === 0 ? JSON.parse(python.stdout) : { jobs: {} }) as Workflow;

/** The CPU a GitHub-hosted runner label gives (docs: "GitHub-hosted runners"). */
const RUNNERS: Record<string, { platform: 'darwin' | 'win32' | 'linux'; arch: 'x64' | 'arm64' }> = {
  'macos-15': { platform: 'darwin', arch: 'arm64' },
  'macos-15-intel': { platform: 'darwin', arch: 'x64' },
  'windows-latest': { platform: 'win32', arch: 'x64' },
  'windows-11-arm': { platform: 'win32', arch: 'arm64' },
  'ubuntu-24.04': { platform: 'linux', arch: 'x64' },
  'ubuntu-24.04-arm': { platform: 'linux', arch: 'arm64' },
};

/** One job of one matrix entry, with ${{ matrix.* }} and ${{ env.* }} filled in. */
interface Instance {
  id: string;
  runsOn: string;
  steps: Step[];
}

function expand(id: string, job: Job): Instance[] {
  const entries = job.strategy?.matrix.include ?? [{}];
  return entries.map((entry) => {
    const fill = (text: string): string =>
      text
        .replace(/\$\{\{\s*matrix\.(\w+)\s*\}\}/g, (_, key: string) => entry[key] ?? `<no matrix.${key}>`)
        .replace(/\$\{\{\s*env\.(\w+)\s*\}\}/g, (_, key: string) => workflow.env?.[key] ?? `<no env.${key}>`);
    const steps = job.steps.map((step) => JSON.parse(fill(JSON.stringify(step))) as Step);
    return { id: `${id} ${JSON.stringify(entry)}`, runsOn: fill(job['runs-on']), steps };
  });
}

const instances = Object.entries(workflow.jobs).flatMap(([id, job]) => expand(id, job).map((instance) => ({ ...instance, job: id })));
const runs = (step: Step, pattern: RegExp): boolean => pattern.test(step.run ?? '');
const builds = instances.filter((instance) => instance.steps.some((step) => runs(step, /\bprebuildify\b/)));

/** The targets an instance builds: darwin-x64+arm64 counts as two, Linux ones carry their libc. */
function targetsOf(instance: Instance): string[] {
  const runner = RUNNERS[instance.runsOn];
  if (!runner) throw new Error(`${instance.id}: unknown runner ${instance.runsOn}`);
  const command = instance.steps.find((step) => runs(step, /\bprebuildify\b/))!.run!;
  const arches = /--arch[ =](\S+)/.exec(command)?.[1]?.split('+') ?? [runner.arch];
  if (runner.platform !== 'linux') return arches.map((arch) => `${runner.platform}-${arch}`);
  // Linux builds run in a container on the runner, natively: its image decides the libc.
  const image = /docker run .*?(\S+) sleep infinity/s.exec(instance.steps.map((step) => step.run ?? '').join('\n'))?.[1] ?? '';
  const libc = /alpine/.test(image) ? 'musl' : /manylinux/.test(image) ? 'glibc' : `<unknown libc: ${image}>`;
  return arches.map((arch) => `linux-${arch}-${libc}`);
}

describe.skipIf(announceSkip('prebuild workflow', skipReason))('.github/workflows/prebuild.yml', () => {
  it('is valid YAML', () => {
    expect(python.stderr.trim().split('\n').at(-1) ?? '').not.toMatch(/Error/);
    expect(python.status).toBe(0);
  });

  it('builds the 8 targets, each once: darwin x64+arm64 universal, win32 x64 and arm64, linux x64 and arm64 for glibc and musl', () => {
    const built = builds.flatMap(targetsOf).sort();
    expect(built).toEqual(
      ['darwin-arm64', 'darwin-x64', 'linux-arm64-glibc', 'linux-arm64-musl', 'linux-x64-glibc', 'linux-x64-musl', 'win32-arm64', 'win32-x64'].sort(),
    );
    // One universal macOS binary, as binding.gyp builds it.
    const darwin = builds.filter((instance) => RUNNERS[instance.runsOn]?.platform === 'darwin');
    expect(darwin).toHaveLength(1);
    expect(darwin[0]!.steps.some((step) => runs(step, /prebuildify .*--arch x64\+arm64/))).toBe(true);
    const gyp = readFileSync(join(projectRoot, 'binding.gyp'), 'utf8');
    expect(gyp).toContain('-arch x86_64');
    expect(gyp).toContain('-arch arm64');
    // Linux prebuilds are tagged with their libc, in images of the runner's own architecture.
    for (const instance of builds.filter((b) => RUNNERS[b.runsOn]?.platform === 'linux')) {
      expect(
        instance.steps.some((step) => runs(step, /prebuildify .*--tag-libc/)),
        instance.id,
      ).toBe(true);
      const images = instance.steps.map((step) => step.run ?? '').join('\n');
      if (/manylinux/.test(images))
        expect(images, instance.id).toContain(RUNNERS[instance.runsOn]!.arch === 'x64' ? 'manylinux_2_28_x86_64' : 'manylinux_2_28_aarch64');
    }
  });

  it('builds with the napi flag and strips, and records each prebuild in the manifest before testing it', () => {
    for (const instance of builds) {
      const build = instance.steps.findIndex((step) => runs(step, /\bprebuildify\b/));
      expect(instance.steps[build]!.run, instance.id).toMatch(/prebuildify --napi --strip/);
      const manifest = instance.steps.findIndex((step) => runs(step, /scripts\/prebuild-manifest\.mjs (darwin|win32|linux)-/));
      expect(manifest, `${instance.id}: prebuild-manifest.mjs`).toBeGreaterThan(build);
    }
  });

  it('tests every prebuild with PREBUILDS_ONLY=1, after building it, in the job that built it', () => {
    expect(builds.length).toBeGreaterThanOrEqual(7);
    for (const instance of builds) {
      const build = instance.steps.findIndex((step) => runs(step, /\bprebuildify\b/));
      const test = instance.steps.findIndex((step) => runs(step, /\bnpm test\b/));
      expect(test, `${instance.id}: npm test`).toBeGreaterThan(build);
      const step = instance.steps[test]!;
      expect(step.env?.PREBUILDS_ONLY, instance.id).toBe('1');
      // Into a container, the variable must be passed on.
      if (runs(step, /docker exec/)) expect(step.run, instance.id).toMatch(/docker exec (?:.* )?-e PREBUILDS_ONLY\b/);
      expect(step.if, `${instance.id}: the test step always runs`).toBeUndefined();
    }
  });

  it("tests the universal binary's x64 slice on an x64 Mac, with PREBUILDS_ONLY=1", () => {
    const tests = instances.filter(
      (instance) =>
        RUNNERS[instance.runsOn]?.platform === 'darwin' &&
        RUNNERS[instance.runsOn]?.arch === 'x64' &&
        instance.steps.some((step) => step.uses?.startsWith('actions/download-artifact@') && step.with?.name === 'prebuild-darwin-x64+arm64'),
    );
    expect(tests).toHaveLength(1);
    const test = tests[0]!.steps.find((step) => runs(step, /\bnpm test\b/));
    expect(test?.env?.PREBUILDS_ONLY).toBe('1');
  });

  it('uploads one artifact per build, and a merge job that waits for every job downloads them all', () => {
    const uploads = builds.map((instance) => instance.steps.find((step) => step.uses?.startsWith('actions/upload-artifact@'))?.with?.name);
    expect(uploads.every((name) => typeof name === 'string' && name.startsWith('prebuild-'))).toBe(true);
    expect(new Set(uploads).size).toBe(builds.length);

    const merges = Object.entries(workflow.jobs).filter(([, job]) =>
      job.steps.some(
        (step) => step.uses?.startsWith('actions/download-artifact@') && step.with?.pattern === 'prebuild-*' && step.with?.['merge-multiple'] === true,
      ),
    );
    expect(merges).toHaveLength(1);
    const [mergeId, merge] = merges[0]!;
    const needs = typeof merge.needs === 'string' ? [merge.needs] : (merge.needs ?? []);
    expect([...needs].sort()).toEqual(
      Object.keys(workflow.jobs)
        .filter((id) => id !== mergeId)
        .sort(),
    );
    expect(merge.steps.some((step) => step.uses?.startsWith('actions/upload-artifact@') && step.with?.name === 'prebuilds')).toBe(true);
  });

  it('uses the official actions at a pinned major version, and Node 20', () => {
    const uses = Object.values(workflow.jobs).flatMap((job) => job.steps.map((step) => step.uses).filter((action): action is string => action !== undefined));
    expect(uses.length).toBeGreaterThan(0);
    for (const action of uses) expect(action).toMatch(/^actions\/(checkout|setup-node|upload-artifact|download-artifact)@v\d+$/);
    for (const instance of instances) {
      for (const step of instance.steps.filter((s) => s.uses?.startsWith('actions/setup-node@')))
        expect(String(step.with?.['node-version'])).toMatch(/^20(\.|$)/);
    }
  });
});
