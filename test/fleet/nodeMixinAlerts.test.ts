// disk_fill_forecast says which of node-mixin's alerts hold with the
// expressions in src/fleet/nodeMixinAlerts.ts; Prometheus fires them from
// prometheus/diskprobe.rules.yml. The two must be the same alerts, with the
// same expressions, `for` and severities, or the tool would say "holds" of
// an alert that never fires, or the reverse.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { BASE_MATCHERS } from '../../src/fleet/filesystems.js';
import { MIXIN_ALERTS, mixinAlertsQuery } from '../../src/fleet/nodeMixinAlerts.js';
import { matcherList } from '../../src/fleet/promql.js';
import { announceSkip, projectRoot } from '../helpers/system.js';
import { parseYaml } from '../helpers/yaml.js';

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
}

const parsed = parseYaml(readFileSync(join(projectRoot, 'prometheus/diskprobe.rules.yml'), 'utf8'));
const groups = ('value' in parsed ? (parsed.value as { groups: Array<{ name: string; rules: Rule[] }> }).groups : []) as Array<{ name: string; rules: Rule[] }>;
const rules = groups.flatMap((group) => group.rules);

/** Whitespace does not matter to PromQL: one space for each run, none inside parentheses' edges. */
const normal = (expr: string): string => expr.replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/ \)/g, ')').trim();

describe.skipIf(announceSkip('the rules file against the forecast', 'skip' in parsed ? parsed.skip : undefined))(
  'node-mixin alerts: the tool and the rules',
  () => {
    const selector = matcherList(BASE_MATCHERS);

    it('uses the selector the tools add to every query', () => {
      expect(selector).toBe('fstype!="",mountpoint!=""');
    });

    it('has the same node-mixin alerts, one for one, with the same expressions, for and severity', () => {
      const fromRules = rules
        .filter((rule) => rule.alert?.startsWith('NodeFilesystem'))
        .map((rule) => ({ alertname: rule.alert, severity: rule.labels?.severity, for: rule.for, expr: normal(rule.expr) }));
      const fromTool = MIXIN_ALERTS.map((alert) => ({
        alertname: alert.alertname,
        severity: alert.severity,
        for: alert.for,
        expr: normal(alert.expr(selector)),
      }));
      expect(fromTool).toEqual(fromRules);
      expect(fromTool).toHaveLength(8);
    });

    it('asks for all of them in one query, each series labelled with its alert', () => {
      const query = mixinAlertsQuery(selector);
      expect(query.split('\nor\n')).toHaveLength(8);
      for (const alert of MIXIN_ALERTS) expect(query).toContain(`"alertname", "${alert.alertname}", "", ""), "severity", "${alert.severity}"`);
    });
  },
);
