// The exposition, in-process: escaping, ordering, both formats, the Accept
// negotiation (with Prometheus 2.42's and 3.x's own headers), a scrape's budget,
// and the device_error texts.
import { describe, expect, it } from 'vitest';

import { CONTENT_TYPES, escapeLabelValue, negotiate, render } from '../../dist/metrics/exposition.js';
import { deviceErrorText } from '../../dist/metrics/filesystemMetrics.js';
import { scrapeBudget } from '../../dist/metrics/metricsServer.js';

const family = {
  name: 'node_filesystem_size_bytes',
  help: 'Filesystem size in bytes.',
  type: 'gauge' as const,
  labelNames: ['device', 'mountpoint'],
  samples: [
    { labels: ['b', '/b'], value: 2n ** 60n },
    { labels: ['a', 'quo"te\\back\nline'], value: 1.5 },
  ],
};

describe('render', () => {
  it('writes HELP and TYPE, then the samples sorted by label values, with exact integers and escaped labels', () => {
    expect(render([family], 'text')).toBe(
      '# HELP node_filesystem_size_bytes Filesystem size in bytes.\n# TYPE node_filesystem_size_bytes gauge\n' +
        'node_filesystem_size_bytes{device="a",mountpoint="quo\\"te\\\\back\\nline"} 1.5\n' +
        'node_filesystem_size_bytes{device="b",mountpoint="/b"} 1152921504606846976\n',
    );
  });

  it('ends OpenMetrics with # EOF, sorts families by name, and leaves out empty ones', () => {
    const text = render(
      [
        { ...family, name: 'z_last' },
        { ...family, samples: [], name: 'empty' },
        { ...family, name: 'a_first', help: 'say "hi"\\' },
      ],
      'openmetrics',
    );
    expect(text.split('\n').filter((line) => line.startsWith('# TYPE'))).toEqual(['# TYPE a_first gauge', '# TYPE z_last gauge']);
    expect(text).toContain('# HELP a_first say \\"hi\\"\\\\\n');
    expect(text.endsWith('\n# EOF\n')).toBe(true);
    expect(escapeLabelValue('plain')).toBe('plain');
  });
});

describe('negotiate', () => {
  it('picks OpenMetrics for the Accept headers Prometheus sends, and text otherwise', () => {
    expect(
      negotiate('application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'),
    ).toBe('openmetrics');
    expect(
      negotiate(
        'application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,application/openmetrics-text;version=0.0.1;q=0.5,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2',
      ),
    ).toBe('openmetrics');
    expect(negotiate('text/plain;version=0.0.4')).toBe('text');
    expect(negotiate(undefined)).toBe('text');
    expect(negotiate('application/openmetrics-text;version=2.0.0')).toBe('text');
    expect(negotiate('application/openmetrics-text;q=0')).toBe('text');
    expect(CONTENT_TYPES.openmetrics).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
  });
});

describe('scrapeBudget', () => {
  it("is Prometheus's timeout less a tenth (at least 100 ms), capped by --timeout; --timeout alone without the header", () => {
    expect(scrapeBudget('10', 5000)).toBe(5000);
    expect(scrapeBudget('1', 5000)).toBe(900);
    expect(scrapeBudget('0.5', 5000)).toBe(400);
    expect(scrapeBudget('0.01', 5000)).toBe(50);
    expect(scrapeBudget(undefined, 3000)).toBe(3000);
    expect(scrapeBudget('nonsense', 3000)).toBe(3000);
  });
});

describe('deviceErrorText', () => {
  it('says "mountpoint timeout" for a mount that did not answer, and Go\'s errno text for the rest', () => {
    expect(deviceErrorText({ code: 'ETIMEDOUT', message: 'ETIMEDOUT: /mnt: not responding' })).toBe('mountpoint timeout');
    expect(deviceErrorText({ code: 'ENOTCONN', message: 'ENOTCONN: /mnt: socket is not connected' })).toBe('transport endpoint is not connected');
    expect(deviceErrorText({ code: 'EXDEV', message: 'EXDEV: /mnt: cross-device link not permitted' })).toBe('cross-device link not permitted');
  });
});
