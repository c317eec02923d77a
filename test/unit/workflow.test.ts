// .github/workflows/prebuild.yml cannot run here (macOS, Windows and arm64
// runners), so its shape is checked instead: one job rebuilds every prebuild
// with the pinned toolchain and proves it byte-identical (--check), and every
// committed prebuild is tested on its own platform with PREBUILDS_ONLY=1,
// nothing rebuilt. On a tag, and only after all of that, one job attaches the
// MCP Bundle to the release; nothing is published. YAML is read by Python's
// PyYAML (no YAML parser is among the package's dependencies); without it the
// suite skips, saying so.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// @ts-expect-error: a plain .mjs script, no types
import { TARGETS } from '../../scripts/prebuildTargets.mjs';
import { announceSkip, projectRoot } from '../helpers/system.js';
import { parseYaml } from '../helpers/yaml.js';

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, string | boolean>;
  'working-directory'?: string;
}
interface Job {
  name?: string;
  'runs-on': string;
  container?: string;
  needs?: string | string[];
  if?: string;
  permissions?: Record<string, string>;
  strategy?: { matrix: { include?: Array<Record<string, string>> } };
  steps: Step[];
}
interface Workflow {
  permissions?: Record<string, string>;
  env?: Record<string, string>;
  jobs: Record<string, Job>;
}

const source = readFileSync(join(projectRoot, '.github/workflows/prebuild.yml'), 'utf8');
const parsed = parseYaml(source);
const skipReason = 'skip' in parsed ? parsed.skip : undefined;
const workflow = ('value' in parsed ? parsed.value : { jobs: {} }) as Workflow;

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
  container: string | undefined;
  matrix: Record<string, string>;
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
    return {
      id: `${id} ${JSON.stringify(entry)}`,
      runsOn: fill(job['runs-on']),
      container: job.container === undefined ? undefined : fill(job.container),
      matrix: entry,
      steps,
    };
  });
}

const instances = Object.entries(workflow.jobs).flatMap(([id, job]) => expand(id, job));
const runs = (step: Step, pattern: RegExp): boolean => pattern.test(step.run ?? '');
const index = (instance: Instance, pattern: RegExp): number => instance.steps.findIndex((step) => runs(step, pattern));
const tests = instances.filter((instance) => index(instance, /^npm test$/) >= 0);

/** The prebuild an instance tests, from its runner and its container's image: linux ones carry their libc. */
function testedTarget(instance: Instance): string {
  const runner = RUNNERS[instance.runsOn];
  if (!runner) throw new Error(`${instance.id}: unknown runner ${instance.runsOn}`);
  if (runner.platform !== 'linux') return `${runner.platform}-${runner.arch}`;
  const libc = instance.container === undefined ? 'glibc' : /alpine/.test(instance.container) ? 'musl' : 'glibc';
  return `linux-${runner.arch}-${libc}`;
}

describe.skipIf(announceSkip('prebuild workflow', skipReason))('.github/workflows/prebuild.yml', () => {
  it('is valid YAML', () => {
    // parseYaml throws on a YAML error; a parse that yields no jobs is no workflow.
    expect(Object.keys(workflow.jobs).length).toBeGreaterThan(0);
  });

  it('rebuilds every prebuild with the pinned toolchain on Linux x64 and fails unless each is byte-identical', () => {
    const rebuilds = instances.filter((instance) => index(instance, /^npm run prebuilds -- --check$/) >= 0);
    expect(rebuilds).toHaveLength(1);
    const [rebuild] = rebuilds;
    expect(RUNNERS[rebuild!.runsOn]).toEqual({ platform: 'linux', arch: 'x64' });
    expect(index(rebuild!, /^npm ci\b/)).toBeLessThan(index(rebuild!, /prebuilds -- --check/));
    // Nothing anywhere builds prebuilds to use: no plain `npm run prebuilds`, no prebuildify, no node-gyp.
    for (const instance of instances) {
      for (const step of instance.steps) expect(step.run ?? '', instance.id).not.toMatch(/npm run prebuilds(?! -- --check)|prebuildify|node-gyp/);
    }
  });

  it('tests every committed prebuild on its own platform, and the glibc one again on glibc 2.28', () => {
    const tested = tests.map(testedTarget);
    const targets = (TARGETS as Array<{ name: string }>).map((target) => target.name);
    expect([...new Set(tested)].sort()).toEqual([...targets].sort());
    for (const instance of tests) expect(instance.matrix.target, instance.id).toBe(testedTarget(instance).replace(/-(glibc|musl)$/, ''));
    // RHEL 8's glibc 2.28, Node 20's own floor: the oldest a glibc prebuild must load on.
    expect(tests.filter((instance) => /ubi8/.test(instance.container ?? '')).map(testedTarget)).toEqual(['linux-x64-glibc']);
  });

  it('installs and tests with PREBUILDS_ONLY=1, smoke-checks the committed file, then checks nothing in prebuilds/ changed', () => {
    expect(tests.length).toBe(9);
    for (const instance of tests) {
      const install = index(instance, /^npm ci\b/);
      const test = index(instance, /^npm test$/);
      const smoke = index(instance, /smoke-prebuild\.mjs/);
      const unchanged = index(instance, /^git diff --exit-code -- prebuilds\/$/);
      expect([install >= 0, install < test, test < smoke, smoke < unchanged], instance.id).toEqual([true, true, true, true]);
      expect(unchanged, instance.id).toBe(instance.steps.length - 1);
      for (const at of [install, test, smoke]) {
        expect(instance.steps[at]!.env?.PREBUILDS_ONLY, instance.id).toBe('1');
        expect(instance.steps[at]!.if, `${instance.id}: every step always runs`).toBeUndefined();
      }
      expect(instance.steps[smoke]!.env?.DISKPROBE_BACKEND).toBe('native');
      const [target, arch, libc] = instance.steps[smoke]!.run!.split(' ').slice(2);
      expect(`${target}-${libc ?? 'glibc'}`.replace(/^(darwin|win32)-(x64|arm64)-glibc$/, '$1-$2'), instance.id).toBe(testedTarget(instance));
      expect(arch, instance.id).toBe(RUNNERS[instance.runsOn]!.arch);
    }
  });

  it('on a tag only, after every prebuild job, attaches the MCP Bundle, its sha256 and server.json to the release', () => {
    const bundling = Object.entries(workflow.jobs).filter(([, job]) => job.steps.some((step) => /\bbundle:mcpb\b/.test(step.run ?? '')));
    expect(bundling.map(([id]) => id)).toEqual(['release']);
    const job = workflow.jobs.release!;
    // Every other job is the rebuild or a test of committed prebuilds: the bundle carries them.
    expect([job.needs ?? []].flat().sort()).toEqual(
      Object.keys(workflow.jobs)
        .filter((id) => id !== 'release')
        .sort(),
    );
    expect(job.if).toBe("startsWith(github.ref, 'refs/tags/v')");
    // It alone may write (to create the release and upload to it); every other job reads.
    expect(job.permissions).toEqual({ contents: 'write' });
    expect(workflow.permissions).toEqual({ contents: 'read' });
    for (const [id, other] of Object.entries(workflow.jobs)) if (id !== 'release') expect(other.permissions, id).toBeUndefined();

    const at = (pattern: RegExp): number => job.steps.findIndex((step) => pattern.test(step.run ?? ''));
    const steps = {
      tag: at(/^test "\$GITHUB_REF_NAME" = "v\$VERSION"$/m),
      install: at(/^npm ci\b/),
      compile: at(/^npm run compile$/),
      bundle: at(/^npm run bundle:mcpb -- --out dist-mcpb$/),
      sha256: at(/^sha256sum "diskprobe-\$VERSION\.mcpb" > "diskprobe-\$VERSION\.mcpb\.sha256"$/m),
      upload: at(/^gh release upload /m),
    };
    const order = Object.values(steps);
    expect(
      order.every((index) => index >= 0),
      JSON.stringify(steps),
    ).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    // VERSION is package.json's, checked against the tag, for the steps after.
    expect(job.steps[steps.tag]!.run).toMatch(/VERSION=\$\(node -p 'require\("\.\/package\.json"\)\.version'\)[\s\S]*>> "\$GITHUB_ENV"/);
    for (const step of [steps.install, steps.compile]) expect(job.steps[step]!.env?.PREBUILDS_ONLY).toBe('1');
    expect(job.steps[steps.sha256]!.run).toMatch(/grep -qF "\$SUM" server\.json/);
    const upload = job.steps[steps.upload]!;
    expect(upload.run).toMatch(
      /^gh release upload "\$GITHUB_REF_NAME" "diskprobe-\$VERSION\.mcpb" "diskprobe-\$VERSION\.mcpb\.sha256" server\.json --clobber$/m,
    );
    expect(upload.env?.GH_TOKEN).toMatch(/^\$\{\{ github\.token \}\}$/);
    for (const step of [steps.sha256, steps.upload]) expect(job.steps[step]!['working-directory']).toBe('dist-mcpb');
  });

  it('publishes nothing: no npm publish, no MCP Registry, no publishing credentials', () => {
    // The comments may say what the maintainer does by hand; no line of the workflow itself may.
    const code = source
      .split('\n')
      .filter((line) => !/^\s*#/.test(line))
      .join('\n');
    expect(code).not.toMatch(/npm publish|mcp-publisher|NODE_AUTH_TOKEN|NPM_TOKEN|id-token/);
  });

  it('uses the official actions at a pinned major version, and Node 20', () => {
    const uses = Object.values(workflow.jobs).flatMap((job) => job.steps.map((step) => step.uses).filter((action): action is string => action !== undefined));
    expect(uses.length).toBeGreaterThan(0);
    for (const action of uses) expect(action).toMatch(/^actions\/(checkout|setup-node)@v\d+$/);
    for (const instance of instances) {
      for (const step of instance.steps.filter((s) => s.uses?.startsWith('actions/setup-node@')))
        expect(String(step.with?.['node-version'])).toMatch(/^20(\.|$)/);
      if (instance.container !== undefined) expect(instance.container).toMatch(/(node:20-|nodejs-20)/);
    }
  });
});
