// prometheus/diskprobe.rules.yml, the rule file shipped in the package, with
// Debian's promtool: it loads (promtool check rules), its unit tests pass
// (promtool test rules prometheus/tests/diskprobe.rules.test.yml), and those
// tests fail on a copy of the rules with a threshold, a `for`, a label value or
// a range changed: they demonstrably pin the rules.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { type PrometheusTools, prometheusTools } from '../helpers/prometheus.js';
import { announceSkip, projectRoot, tempDir } from '../helpers/system.js';

const tools = prometheusTools();
const toolsSkip = typeof tools === 'string' ? tools : undefined;

const RULES = 'prometheus/diskprobe.rules.yml';
const UNIT_TESTS = 'prometheus/tests/diskprobe.rules.test.yml';
const rulesText = readFileSync(join(projectRoot, RULES), 'utf8');
const unitTestsText = readFileSync(join(projectRoot, UNIT_TESTS), 'utf8');

/** promtool with `args` in `cwd`; output is stdout and stderr together, for failure messages. */
function promtool(args: string[], cwd = projectRoot): { status: number | null; output: string } {
  const result = spawnSync((tools as PrometheusTools).promtool, args, { cwd, encoding: 'utf8', timeout: 120_000 });
  const output = `$ promtool ${args.join(' ')}\n${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? `\n${result.error.message}` : ''}`;
  return { status: result.status, output };
}

/**
 * A directory laid out as prometheus/ is (the rules, and tests/ with the unit
 * tests, which name ../diskprobe.rules.yml) with `rules` as the rule file.
 */
function layout(rules: string): string {
  const dir = tempDir('diskprobe-rules-');
  mkdirSync(join(dir, 'tests'));
  writeFileSync(join(dir, 'diskprobe.rules.yml'), rules);
  writeFileSync(join(dir, 'tests/diskprobe.rules.test.yml'), unitTestsText);
  return dir;
}

/** `text` (the rule file) with `from` replaced by `to`, found once in the rule named `rule` (an alert or record), at `severity` if given. */
function changed(rule: string, from: string, to: string, severity?: string, text = rulesText): string {
  const chunks = text.split(/(?=^ {6}- (?:alert|record): )/m);
  const index = chunks.findIndex(
    (chunk) => new RegExp(`^ {6}- (?:alert|record): ${rule}\\n`).test(chunk) && (severity === undefined || chunk.includes(`severity: ${severity}\n`)),
  );
  expect(index, `rule ${rule} ${severity ?? ''}`).toBeGreaterThan(0);
  const chunk = chunks[index]!;
  expect(chunk.split(from), `"${from}" in ${rule} ${severity ?? ''}`).toHaveLength(2);
  chunks[index] = chunk.replace(from, to);
  return chunks.join('');
}

describe.skipIf(announceSkip('promtool check/test rules on prometheus/diskprobe.rules.yml', toolsSkip))('prometheus/diskprobe.rules.yml', () => {
  it('passes promtool check rules: 11 rules (8 node-mixin alerts, 2 of diskprobe, 1 recording rule)', () => {
    const checked = promtool(['check', 'rules', RULES]);
    expect(checked.status, checked.output).toBe(0);
    expect(checked.output).toContain('SUCCESS: 11 rules found');
  });

  it('passes its unit tests (promtool test rules)', () => {
    const tested = promtool(['test', 'rules', UNIT_TESTS]);
    expect(tested.status, tested.output).toBe(0);
    expect(tested.output).toMatch(/SUCCESS/);
  }, 120_000);

  it('has unit tests that fail on a copy with the warning threshold of NodeFilesystemSpaceFillingUp at 60 instead of 40', () => {
    const dir = layout(changed('NodeFilesystemSpaceFillingUp', '* 100 < 40\n', '* 100 < 60\n', 'warning'));
    // Still a valid rule file: what fails is the unit tests, not the loading.
    const checked = promtool(['check', 'rules', 'diskprobe.rules.yml'], dir);
    expect(checked.status, checked.output).toBe(0);
    const tested = promtool(['test', 'rules', 'tests/diskprobe.rules.test.yml'], dir);
    expect(tested.status, `the unit tests passed with the threshold changed:\n${tested.output}`).not.toBe(0);
    expect(tested.output).toMatch(/FAILED/);
    expect(tested.output).toContain('alertname: NodeFilesystemSpaceFillingUp');
  }, 120_000);

  it('has unit tests that fail on other changes, each in its own rule: a `for`, a label value, a threshold, a range', () => {
    // Changes to different rules in one copy: promtool reports every failing
    // check, under its alert's name or its expression, so each must show up.
    const changes = [
      { rule: 'NodeFilesystemAlmostOutOfFiles', severity: 'critical', from: 'for: 1h', to: 'for: 59m', reported: 'alertname: NodeFilesystemAlmostOutOfFiles' },
      { rule: 'DiskprobeMountStuck', from: '{device_error="mountpoint timeout"}', to: '', reported: 'alertname: DiskprobeMountStuck' },
      { rule: 'DiskprobeScrapeNearBudget', from: '> 0.8', to: '> 0.9', reported: 'alertname: DiskprobeScrapeNearBudget' },
      { rule: 'instance_mountpoint:node_filesystem_avail_bytes:hours_to_full', from: '[6h]', to: '[1h]', reported: 'expr: "count by (mountpoint) (' },
    ];
    const rules = changes.reduce((text, { rule, from, to, severity }) => changed(rule, from, to, severity, text), rulesText);
    const tested = promtool(['test', 'rules', 'tests/diskprobe.rules.test.yml'], layout(rules));
    expect(tested.status, `the unit tests passed with the rules changed:\n${tested.output}`).not.toBe(0);
    for (const { rule, from, to, reported } of changes) {
      expect(tested.output, `${rule} with ${from} changed to "${to}" went unnoticed:\n${tested.output}`).toContain(reported);
    }
  }, 120_000);
});
