// The text that reaches Prometheus, and what is read back from it, without a
// Prometheus: label values quoted so that no value can leave its string
// literal (issue 20), --prometheus-selector read into matchers and nothing
// else, durations, the forecast maths, the join of node_filesystem series,
// and `serve --prometheus` on the command line.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { parseCommandLine } from '../../src/cli/commandLine.js';
import { UsageError } from '../../src/cli/usageError.js';
import { joinFilesystems } from '../../src/fleet/filesystems.js';
import { MIN_SAMPLES, showHours, trend } from '../../src/fleet/forecast.js';
import type { Sample } from '../../src/fleet/prometheusClient.js';
import { duration, durationMs, labelMatcher, type Matcher, matcherList, PromqlValueError, parseSelector, showDuration } from '../../src/fleet/promql.js';

const OPS: readonly Matcher['op'][] = ['=', '!=', '=~', '!~'];

/** The characters that could end a string literal early or change its meaning, and every other code point. */
const valueUnit = fc.oneof(
  fc.constantFrom('"', '\\', '\n', '\r', '\t', '\0', '\x7f', '\u2028', '`', "'", '{', '}', ',', '=', '~', 'é', '😀', '𝄞'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
);
const labelValue = fc.oneof(
  fc.string({ unit: valueUnit, maxLength: 40 }),
  fc.constantFrom('', '"}or vector(1)', '"} or vector(1) or {a="', '\\"', 'a\\', '\\', '"', '\\u0022', '\n"}', 'x"\n,y="'),
);
const labelName = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,12}$/);
const matcher: fc.Arbitrary<Matcher> = fc.record({ name: labelName, op: fc.constantFrom(...OPS), value: labelValue });

describe('labelMatcher', () => {
  it('writes any well-formed value as one string literal that reads back as the value', () => {
    fc.assert(
      fc.property(matcher, (m) => {
        const text = labelMatcher(m);
        // Nothing after the closing quote, and no unescaped quote inside: the value cannot close the literal early.
        expect(text).toMatch(new RegExp(`^${m.name}(=|!=|=~|!~)"(?:[^"\\\\]|\\\\.)*"$`, 's'));
        expect(text.slice(m.name.length, m.name.length + m.op.length)).toBe(m.op);
        expect(JSON.parse(text.slice(m.name.length + m.op.length))).toBe(m.value);
      }),
      { numRuns: 2000 },
    );
  });

  it('quotes the values a crafted argument would use to add to the query', () => {
    expect(labelMatcher({ name: 'instance', op: '=', value: '"}or vector(1)' })).toBe('instance="\\"}or vector(1)"');
    expect(labelMatcher({ name: 'mountpoint', op: '!~', value: 'a\\"b\nc' })).toBe('mountpoint!~"a\\\\\\"b\\nc"');
    expect(labelMatcher({ name: 'job', op: '!=', value: '' })).toBe('job!=""');
    // Astral characters are one code point, not two halves: kept as they are.
    expect(labelMatcher({ name: 'job', op: '=~', value: '😀𝄞é' })).toBe('job=~"😀𝄞é"');
  });

  it('refuses a lone surrogate (it has no UTF-8 form), at either end or between other characters', () => {
    for (const value of ['\ud800', '\udfff', 'a\ud83d', '\ude00b', 'x\udc00\ud800y']) {
      expect(() => labelMatcher({ name: 'job', op: '=', value })).toThrow(PromqlValueError);
      expect(() => labelMatcher({ name: 'job', op: '=', value })).toThrow('the value of job is not well-formed Unicode');
    }
  });

  it('refuses a name that is not a label name, so that no name can carry a query either', () => {
    for (const name of ['', '1job', 'job-name', 'job name', 'a.b', 'job="x",y', '__name__ ', 'é']) {
      expect(() => labelMatcher({ name, op: '=', value: 'x' })).toThrow(`not a label name: ${JSON.stringify(name)}`);
    }
    expect(labelMatcher({ name: '__name__', op: '=~', value: 'node_.*' })).toBe('__name__=~"node_.*"');
  });

  it('matcherList joins matchers with commas, each quoted', () => {
    expect(
      matcherList([
        { name: 'fstype', op: '!=', value: '' },
        { name: 'env', op: '=~', value: 'prod|staging' },
      ]),
    ).toBe('fstype!="",env=~"prod|staging"');
    expect(matcherList([])).toBe('');
  });
});

describe('parseSelector', () => {
  it('takes spaces after a trailing comma, and says an empty selector is empty', () => {
    expect(parseSelector('{job="node", }')).toEqual([{ name: 'job', op: '=', value: 'node' }]);
    expect(parseSelector(' { job="node" ,\n } ')).toEqual([{ name: 'job', op: '=', value: 'node' }]);
    expect(() => parseSelector('{ }')).toThrow('no label matchers');
  });

  it('refuses at once a value no query can hold (a lone surrogate, as an escape)', () => {
    expect(() => parseSelector('job="\\ud800"')).toThrow(PromqlValueError);
  });

  it('reads one matcher, braces or none', () => {
    expect(parseSelector('job="node"')).toEqual([{ name: 'job', op: '=', value: 'node' }]);
    expect(parseSelector('{job="node"}')).toEqual([{ name: 'job', op: '=', value: 'node' }]);
  });

  it('reads several, with spaces anywhere between tokens and a trailing comma', () => {
    const expected = [
      { name: 'job', op: '=', value: 'node' },
      { name: 'env', op: '=~', value: 'prod|staging' },
    ];
    expect(parseSelector('{job="node", env=~"prod|staging"}')).toEqual(expected);
    expect(parseSelector('  { job = "node" ,\n\tenv =~ "prod|staging" }  ')).toEqual(expected);
    expect(parseSelector('{job="node",env=~"prod|staging",}')).toEqual(expected);
    expect(parseSelector('job="node",env=~"prod|staging",')).toEqual(expected);
  });

  it('reads all four operators', () => {
    expect(parseSelector('a="1",b!="2",c=~"3.*",d!~"4|5"')).toEqual([
      { name: 'a', op: '=', value: '1' },
      { name: 'b', op: '!=', value: '2' },
      { name: 'c', op: '=~', value: '3.*' },
      { name: 'd', op: '!~', value: '4|5' },
    ]);
  });

  it('reads escapes in values: quotes, backslashes, newlines, \\u', () => {
    expect(parseSelector('path="a\\"b"')).toEqual([{ name: 'path', op: '=', value: 'a"b' }]);
    expect(parseSelector('path="C:\\\\x",n="1\\n2\\t3",u="\\u00e9"')).toEqual([
      { name: 'path', op: '=', value: 'C:\\x' },
      { name: 'n', op: '=', value: '1\n2\t3' },
      { name: 'u', op: '=', value: 'é' },
    ]);
    // A quote escaped inside the value does not end it: this is one matcher whose value looks like two.
    expect(parseSelector('job="a\\",env=\\"b"')).toEqual([{ name: 'job', op: '=', value: 'a",env="b' }]);
  });

  it('refuses what is not a list of double-quoted matchers, saying where', () => {
    const refusals: [string, string][] = [
      ['job=node', 'at "job=node"'],
      ['job="a" env="b"', 'at "job=\\"a\\" env=\\"b\\""'],
      ['job="a",env=b', 'at "env=b"'],
      ['1job="x"', 'at "1job=\\"x\\""'],
      ['job="a"} or vector(1) {x="', 'at "job=\\"a\\"} or vector(1"'],
      ['{job="a"} or vector(1) {x="b"}', 'at "job=\\"a\\"} or vector(1"'],
      ["job='node'", 'at "job=\'node\'"'],
      ['job=="node"', 'at "job==\\"node\\""'],
      ['job="node', 'at "job=\\"node"'],
      ['job="a",,', 'at ","'],
    ];
    for (const [text, where] of refusals) {
      expect(() => parseSelector(text), text).toThrow(
        `expected a label matcher such as job="node" ${where} (values in double quotes; matchers separated by commas)`,
      );
    }
  });

  it('refuses an empty selector', () => {
    for (const text of ['', '   ', '{}', ' {} ']) expect(() => parseSelector(text), text).toThrow('no label matchers: give one or more, such as job="node"');
  });

  it('refuses an escape that JSON does not have, naming the label', () => {
    expect(() => parseSelector('job="a\\qb"')).toThrow('the value of job has an escape other than');
    expect(() => parseSelector('job="\\x41"')).toThrow('the value of job has an escape other than');
  });

  it('yields matchers that write back to text reading as the same matchers', () => {
    for (const text of ['job="node"', '{ job = "node" , env =~ "prod|staging" ,}', 'a="\\"}or vector(1)",b!~"\\\\",c!="😀\\n"']) {
      const matchers = parseSelector(text);
      expect(parseSelector(matcherList(matchers))).toEqual(matchers);
    }
    fc.assert(
      fc.property(fc.array(matcher, { minLength: 1, maxLength: 5 }), (matchers) => {
        expect(parseSelector(matcherList(matchers))).toEqual(matchers);
        expect(parseSelector(`{${matcherList(matchers)}}`)).toEqual(matchers);
      }),
      { numRuns: 1000 },
    );
  });

  it('whatever text it accepts, it yields only matchers: written back, each is one quoted literal', () => {
    // Text from the pieces a selector, or an attempt to smuggle a query into one, is made of: matcher-like
    // runs, some broken, between separators, some of which are not separators.
    const inside = fc.constantFrom('node', 'x', ' ', '"', '\\"', '\\\\', '\\n', ',', '{', '}', '(', ')', 'or vector(1)', "'", '=', 'é', '😀');
    /** Mostly the well-formed choice, sometimes a broken one. */
    const mostly = (good: string[], bad: string[]) =>
      fc.oneof({ arbitrary: fc.constantFrom(...good), weight: 6 }, { arbitrary: fc.constantFrom(...bad), weight: 1 });
    const run = fc
      .tuple(
        mostly(['job', 'x_1', ' env '], ['1x', '', 'a b']),
        mostly(['=', '!=', '=~', '!~', ' = '], ['==', '~', '']),
        mostly(['"'], ["'", '']),
        fc.array(inside, { maxLength: 6 }),
        mostly(['"'], ["'", '', '"}']),
      )
      .map(([name, op, open, value, close]) => name + op + open + value.join('') + close);
    const separator = mostly([',', ', ', ' , '], [',,', ' ', '} or {', ')']);
    const text = fc.tuple(fc.array(fc.tuple(run, separator), { maxLength: 4 }), run, fc.boolean()).map(([runs, last, braces]) => {
      const inner = runs.map(([r, sep]) => r + sep).join('') + last;
      return braces ? `{${inner}}` : inner;
    });
    let accepted = 0;
    fc.assert(
      fc.property(text, (t) => {
        let matchers: Matcher[];
        try {
          matchers = parseSelector(t);
        } catch {
          return;
        }
        accepted++;
        for (const m of matchers) expect(labelMatcher(m)).toMatch(/^[a-zA-Z_][a-zA-Z0-9_]*(=|!=|=~|!~)"(?:[^"\\]|\\.)*"$/s);
        expect(parseSelector(matcherList(matchers))).toEqual(matchers);
      }),
      { numRuns: 3000 },
    );
    // The property is about accepted texts: make sure there were plenty.
    expect(accepted).toBeGreaterThan(300);
  });
});

describe('durations', () => {
  it("reads Prometheus's duration syntax", () => {
    const cases: [string, number][] = [
      ['6h', 6 * 3_600_000],
      ['1h30m', 5_400_000],
      ['90s', 90_000],
      ['1d12h', 36 * 3_600_000],
      ['500ms', 500],
      ['5m30ms', 300_030],
      ['1w', 7 * 86_400_000],
      ['1y', 365 * 86_400_000],
      ['1y2w3d4h5m6s7ms', 31_536_000_000 + 2 * 604_800_000 + 3 * 86_400_000 + 4 * 3_600_000 + 5 * 60_000 + 6000 + 7],
    ];
    for (const [text, ms] of cases) expect(durationMs(text), text).toBe(ms);
  });

  it('refuses anything else with NaN', () => {
    for (const text of ['', 'h', '6', '6H', '1m1h', '1h1h', '1.5h', '-1h', '+1h', ' 6h', '6h ', '6h)', '6h]', '1h 30m', '6hours', '1mss', 'ms']) {
      expect(durationMs(text), text).toBeNaN();
    }
  });

  it('shows milliseconds in canonical units, largest first', () => {
    const cases: [string, string][] = [
      ['6h', '6h'],
      ['1h30m', '1h30m'],
      ['90s', '1m30s'],
      ['60m', '1h'],
      ['24h', '1d'],
      ['7d', '1w'],
      ['1d12h', '1d12h'],
      ['36h', '1d12h'],
      ['1000ms', '1s'],
      ['500ms', '500ms'],
      ['1w', '1w'],
      ['365d', '1y'],
      ['1y', '1y'],
      ['0s', '0s'],
    ];
    for (const [text, shown] of cases) expect(showDuration(durationMs(text)), text).toBe(shown);
    // What it shows reads back as the same duration.
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n * 31_536_000_000n }).map(Number), (ms) => {
        expect(durationMs(showDuration(ms))).toBe(ms);
      }),
    );
  });

  it('writes a query duration as whole milliseconds, refusing what is not a positive whole number', () => {
    expect(duration(durationMs('6h'))).toBe('21600000ms');
    expect(duration(1)).toBe('1ms');
    for (const ms of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53])
      expect(() => duration(ms), String(ms)).toThrow('not a duration in milliseconds');
  });
});

describe('trend', () => {
  const GiB = 1024 ** 3;

  it('forecasts a filling file system: the rate per hour, the hours left, the prediction rounded', () => {
    // Losing 100 kB a second: 360 MB an hour, so 10 GiB lasts about 29.8 hours.
    const t = trend(10 * GiB, -100_000, 1234.6, 60);
    expect(t.perHour).toBe(360_000_000);
    expect(t.hoursToFull).toBeCloseTo((10 * GiB) / 360_000_000, 9);
    expect(t.predicted).toBe(1235);
    // Predicted below zero: full before the horizon, kept negative.
    expect(trend(1000, -1, -2599.4, MIN_SAMPLES).predicted).toBe(-2599);
  });

  it('says full now for a free count already at or below zero', () => {
    expect(trend(0, -1, -3600, 10).hoursToFull).toBe(0);
    expect(trend(-5, -1, -3605, 10).hoursToFull).toBe(0);
  });

  it('has no time to full when the free count is steady or growing', () => {
    const growing = trend(GiB, 50, GiB + 50 * 3600, 10);
    expect(growing).toEqual({ perHour: -180_000, hoursToFull: null, predicted: GiB + 180_000 });
    const steady = trend(GiB, 0, GiB, 10);
    expect(steady.hoursToFull).toBeNull();
    expect(steady.perHour === 0).toBe(true);
  });

  it('has no time to full without a free count, but still a rate', () => {
    expect(trend(null, -1, null, 10)).toEqual({ perHour: 3600, hoursToFull: null, predicted: null });
  });

  it('says nothing with too few samples or no derivative', () => {
    const none = { perHour: null, hoursToFull: null, predicted: null };
    expect(trend(GiB, -100, 0, MIN_SAMPLES - 1)).toEqual(none);
    expect(trend(GiB, -100, 0, 0)).toEqual(none);
    expect(trend(GiB, null, 0, 100)).toEqual(none);
    expect(trend(GiB, -100, 0, MIN_SAMPLES).perHour).toBe(360_000);
  });
});

describe('showHours', () => {
  it('words a time as a reader takes it in', () => {
    const cases: [number, string][] = [
      [0, '1 minute'],
      [0.001, '1 minute'],
      [1 / 60, '1 minute'],
      [2 / 60, '2 minutes'],
      [0.75, '45 minutes'],
      [0.99, '59 minutes'],
      [0.995, '1.0 hours'],
      [1, '1.0 hours'],
      [3.4, '3.4 hours'],
      [3.44, '3.4 hours'],
      [12.4, '12 hours'],
      [47, '47 hours'],
      [48, '2.0 days'],
      [60, '2.5 days'],
      [24 * 12.6, '13 days'],
      [24 * 14, '2 weeks'],
      [24 * 7 * 9.4, '9 weeks'],
    ];
    for (const [hours, words] of cases) expect(showHours(hours), String(hours)).toBe(words);
  });
});

describe('joinFilesystems', () => {
  const target = { instance: 'alpha:9100', job: 'node', device: '/dev/sda1', fstype: 'ext4', mountpoint: '/var' };
  const series = (family: string, value: string, labels: Record<string, string> = target): Sample => ({
    labels: { __name__: `node_filesystem_${family}`, ...labels },
    value,
  });

  it('joins the seven families of one file system by their labels, less __name__ and device_error', () => {
    const [fs, ...rest] = joinFilesystems([
      series('size_bytes', '107374182400'),
      series('avail_bytes', '79924928512'),
      series('free_bytes', '85292343296'),
      series('files', '6553600'),
      series('files_free', '6400000'),
      series('readonly', '0'),
      series('device_error', '0'),
    ]);
    expect(rest).toEqual([]);
    expect(fs).toEqual({
      key: JSON.stringify({ device: '/dev/sda1', fstype: 'ext4', instance: 'alpha:9100', job: 'node', mountpoint: '/var' }),
      labels: { device: '/dev/sda1', fstype: 'ext4', instance: 'alpha:9100', job: 'node', mountpoint: '/var' },
      instance: 'alpha:9100',
      job: 'node',
      mountpoint: '/var',
      fstype: 'ext4',
      device: '/dev/sda1',
      sizeBytes: 107374182400,
      availBytes: 79924928512,
      freeBytes: 85292343296,
      files: 6553600,
      filesFree: 6400000,
      readonly: false,
      deviceError: null,
    });
  });

  it('keeps a stuck mount, which has only device_error and readonly series, with no sizes', () => {
    const stuck = { ...target, mountpoint: '/mnt/nfs', fstype: 'nfs4', device: 'server:/export' };
    const [fs, ...rest] = joinFilesystems([series('device_error', '1', { ...stuck, device_error: 'mountpoint timeout' }), series('readonly', '0', stuck)]);
    expect(rest).toEqual([]);
    expect(fs).toMatchObject({
      mountpoint: '/mnt/nfs',
      labels: stuck,
      sizeBytes: null,
      availBytes: null,
      freeBytes: null,
      files: null,
      filesFree: null,
      readonly: false,
      deviceError: 'mountpoint timeout',
    });
  });

  it("names an older node_exporter's device error, which has no label, 'error'; a 0 is none", () => {
    expect(joinFilesystems([series('device_error', '1'), series('readonly', '0')]).map((fs) => fs.deviceError)).toEqual(['error']);
    expect(joinFilesystems([series('device_error', '0', { ...target, device_error: 'stale' })]).map((fs) => fs.deviceError)).toEqual([null]);
  });

  it('reads NaN and infinities as no value, and readonly 1 as read-only', () => {
    const [fs] = joinFilesystems([series('size_bytes', 'NaN'), series('avail_bytes', '+Inf'), series('files', '-Inf'), series('readonly', '1')]);
    expect(fs).toMatchObject({ sizeBytes: null, availBytes: null, files: null, readonly: true });
  });

  it('keeps file systems apart by any label they differ in, target labels included', () => {
    const prod = { ...target, env: 'prod' };
    const staging = { ...target, env: 'staging' };
    const all = joinFilesystems([series('size_bytes', '100', prod), series('size_bytes', '200', staging), series('avail_bytes', '50', prod)]);
    expect(all.map((fs) => [fs.labels.env, fs.sizeBytes, fs.availBytes]).sort()).toEqual([
      ['prod', 100, 50],
      ['staging', 200, null],
    ]);
    expect(new Set(all.map((fs) => fs.key)).size).toBe(2);
  });

  it('ignores series of other families and series without a name', () => {
    expect(joinFilesystems([series('mount_info', '1'), { labels: { ...target }, value: '1' }, series('size_bytesx', '1')])).toEqual([]);
  });
});

describe('parseCommandLine: serve --prometheus', () => {
  const prometheusOf = (args: string[], env: Record<string, string> = {}) =>
    (parseCommandLine(['serve', ...args], env) as { options: { prometheus?: { url: URL; [key: string]: unknown } } }).options.prometheus;
  const refused = (args: string[], message: string, env: Record<string, string> = {}) => {
    let thrown: unknown;
    try {
      parseCommandLine(['serve', ...args], env);
    } catch (error) {
      thrown = error;
    }
    expect(thrown, args.join(' ')).toBeInstanceOf(UsageError);
    expect((thrown as UsageError).message, args.join(' ')).toBe(message);
    expect((thrown as UsageError).status).toBe(2);
  };

  it('reads the URL, path prefix kept, with the defaults', () => {
    const prometheus = prometheusOf(['--prometheus', 'http://p:9090/prefix']);
    expect(prometheus?.url.href).toBe('http://p:9090/prefix');
    expect(prometheus).toMatchObject({ tokenFile: undefined, caFile: undefined, selector: [], timeoutMs: 10_000 });
    // Without the command, too: that is serve.
    expect((parseCommandLine(['--prometheus', 'https://host/prometheus/'], {}) as { options: { prometheus: { url: URL } } }).options.prometheus.url.href).toBe(
      'https://host/prometheus/',
    );
  });

  it('reads its options', () => {
    const prometheus = prometheusOf([
      '--prometheus=https://h/prom',
      '--prometheus-token-file',
      '/run/secrets/token',
      '--prometheus-ca',
      '/etc/ca.pem',
      '--prometheus-selector',
      '{job="node", env=~"prod|staging"}',
      '--prometheus-timeout',
      '2500',
    ]);
    expect(prometheus).toMatchObject({
      tokenFile: '/run/secrets/token',
      caFile: '/etc/ca.pem',
      selector: [
        { name: 'job', op: '=', value: 'node' },
        { name: 'env', op: '=~', value: 'prod|staging' },
      ],
      timeoutMs: 2500,
    });
  });

  it('takes DISKPROBE_PROMETHEUS_URL when the option is absent; the option wins', () => {
    const env = { DISKPROBE_PROMETHEUS_URL: 'http://from-env:9090' };
    expect(prometheusOf([], env)?.url.href).toBe('http://from-env:9090/');
    expect(prometheusOf(['--prometheus-timeout', '50'], env)?.timeoutMs).toBe(50);
    expect(prometheusOf(['--prometheus', 'http://from-flag:9090'], env)?.url.href).toBe('http://from-flag:9090/');
    // The option wins even over a bad variable, and an empty variable is no URL.
    expect(prometheusOf(['--prometheus', 'http://from-flag:9090'], { DISKPROBE_PROMETHEUS_URL: 'ftp://x' })?.url.host).toBe('from-flag:9090');
    expect(prometheusOf([], { DISKPROBE_PROMETHEUS_URL: '' })).toBeUndefined();
    expect(prometheusOf([])).toBeUndefined();
  });

  it('refuses a URL Prometheus cannot be asked at, or that would leak', () => {
    refused(['--prometheus', 'ftp://p:9090'], "option '--prometheus' needs an http or https URL, not 'ftp:'");
    // A common slip: no scheme, so the host is read as one.
    refused(['--prometheus', 'localhost:9090'], "option '--prometheus' needs an http or https URL, not 'localhost:'");
    refused(
      ['--prometheus', 'http://user:pass@p:9090'],
      "option '--prometheus': leave credentials out of the URL (they would show in logs); put a bearer token in a file and give --prometheus-token-file",
    );
    refused(
      ['--prometheus', 'http://user@p:9090'],
      "option '--prometheus': leave credentials out of the URL (they would show in logs); put a bearer token in a file and give --prometheus-token-file",
    );
    for (const url of ['http://p:9090/?query=up', 'http://p:9090/#x']) {
      refused(['--prometheus', url], "option '--prometheus': give the API's base URL, without a query or fragment (diskprobe adds /api/v1/query)");
    }
    refused(
      ['--prometheus', 'prometheus'],
      "option '--prometheus' needs Prometheus's URL, such as http://prometheus:9090 or https://host/prometheus, not 'prometheus'",
    );
    refused(['--prometheus', ''], "option '--prometheus' needs Prometheus's URL, such as http://prometheus:9090 or https://host/prometheus, not ''");
    // From the environment, the message names the variable.
    refused([], "DISKPROBE_PROMETHEUS_URL needs an http or https URL, not 'ftp:'", { DISKPROBE_PROMETHEUS_URL: 'ftp://p' });
  });

  it('refuses its options without a URL', () => {
    for (const option of ['--prometheus-token-file', '--prometheus-ca', '--prometheus-selector', '--prometheus-timeout']) {
      refused([option, 'x'], `option '${option}' needs --prometheus <url> (or DISKPROBE_PROMETHEUS_URL)`);
    }
  });

  it('refuses a bad selector, saying where, and a bad timeout', () => {
    const url = ['--prometheus', 'http://p:9090'];
    refused(
      [...url, '--prometheus-selector', 'job="a"} or vector(1) {x="'],
      'option \'--prometheus-selector\': expected a label matcher such as job="node" at "job=\\"a\\"} or vector(1" (values in double quotes; matchers separated by commas)',
    );
    refused([...url, '--prometheus-selector', '{}'], 'option \'--prometheus-selector\': no label matchers: give one or more, such as job="node"');
    for (const timeout of ['0', '1.5', '-5', '10s', 'x', '2147483648']) {
      refused(
        [...url, `--prometheus-timeout=${timeout}`],
        `option '--prometheus-timeout' needs a whole number of milliseconds from 1 to 2147483647, not '${timeout}'`,
      );
    }
    expect(prometheusOf([...url, '--prometheus-timeout', '2147483647'])?.timeoutMs).toBe(2_147_483_647);
  });
});
