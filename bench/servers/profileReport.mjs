// The CPU-profile part of the bench:server report: diskprobe's main thread
// under a legacy client's load and under a 2026-07-28 client's, by layer and
// by function, and what the modern path adds. Pure: summaries in, text out.
import { fmt } from './figures.mjs';

const shortLayer = (label) => label.replace(/:.*$/, '');

function topLayers(profile) {
  return profile.layers
    .filter((layer) => !/^(idle|native code|other)/.test(layer.label))
    .slice(0, 3)
    .map((layer) => `${shortLayer(layer.label)} (${fmt.us(layer.us / profile.requests)} µs a request)`)
    .join(', ');
}

/** A layer or function that is time spent waiting, not work. */
const IDLE = /^\(?idle/;

/** Per request, the modern profile's time less the legacy one's, by `kind` (layers or functions), largest first. */
function differences(profile, kind) {
  const perRequest = (entries, requests) => new Map(entries.map((entry) => [entry.label, entry.us / requests]));
  const legacy = perRequest(profile.legacy[kind], profile.legacy.requests);
  const modern = perRequest(profile.modern[kind], profile.modern.requests);
  return [...new Set([...legacy.keys(), ...modern.keys()])]
    .map((label) => ({ label, legacyUs: legacy.get(label) ?? 0, modernUs: modern.get(label) ?? 0 }))
    .map((entry) => ({ ...entry, us: entry.modernUs - entry.legacyUs }))
    .sort((a, b) => b.us - a.us);
}

/** The reading's sentence on the two profiles: where each spends most, and what the modern path adds. */
export function profileReading(profile, inFlight) {
  const added = differences(profile, 'layers')
    .filter((layer) => layer.us > 0 && !IDLE.test(layer.label))
    .slice(0, 3)
    .map((layer) => `${shortLayer(layer.label)} (+${fmt.us(layer.us)} µs a request, profiled)`);
  return (
    `- The profiles below (diskprobe alone, ${profile.modern.requests} requests, ${inFlight} in flight, once per client) put the most main-thread ` +
    `time of the legacy path in ${topLayers(profile.legacy)}, and of the modern path in ${topLayers(profile.modern)}. The modern path's ` +
    `added time is mostly in ${added.join(', ')}.`
  );
}

/** The tables, for `profile` = { legacy, modern } (either may be missing). */
export function profileTables(profile, { inFlight }) {
  const eras = ['legacy', 'modern'].filter((era) => profile[era]);
  const share = (era, us) => `${((100 * us) / profile[era].totalUs).toFixed(1)}%`;
  const perRequest = (era, us) => fmt.us(us / profile[era].requests);
  const cells = (era, entries, label) => {
    const us = entries.find((entry) => entry.label === label)?.us ?? 0;
    return [share(era, us), perRequest(era, us)];
  };
  const rows = (kind, labels) =>
    labels.map((label) => `| ${kind === 'functions' ? `\`${label}\`` : label} | ${eras.flatMap((era) => cells(era, profile[era][kind], label)).join(' | ')} |`);
  const header = (first) => [
    `| ${first} | ${eras.map((era) => `${era} client: share | µs per request`).join(' | ')} |`,
    `|---|${'--:|--:|'.repeat(eras.length)}`,
  ];
  // Every layer, in the order of the first era's profile; the functions either profile spends most in.
  const layerLabels = [...new Set(eras.flatMap((era) => profile[era].layers.map((layer) => layer.label)))];
  const functionLabels = [...new Set(eras.flatMap((era) => profile[era].functions.slice(0, 12).map((fn) => fn.label)))];
  const lines = [
    `**Where diskprobe's main thread spends its time** under load: \`node --cpu-prof\`, ${profile[eras[0]].requests} requests with ${inFlight} in`,
    'flight, once from a legacy client and once from a modern one (a process each), self time of the samples taken during those',
    'requests, served by the unbundled `dist/cli/main.js` (the same code as the bin, module by module, so that each function maps',
    'to its source). The profiler slows the server; read the shares, not the absolute figures. Native calls count in their JS caller:',
    "`JSON.parse` in the dispatcher, `JSON.stringify` in the framing, the addon's calls in the probe. The addon's own thread is not sampled.",
    '',
    ...header('Layer'),
    ...rows('layers', layerLabels),
    '',
    ...header("Function (self time), either profile's top 12"),
    ...rows('functions', functionLabels),
  ];
  if (eras.length === 2) {
    lines.push(
      '',
      "| Function (self time): the modern client's largest additions | legacy µs per request | modern µs per request | added |",
      '|---|--:|--:|--:|',
      ...differences(profile, 'functions')
        .filter((fn) => !IDLE.test(fn.label))
        .slice(0, 8)
        .map((fn) => `| \`${fn.label}\` | ${fmt.us(fn.legacyUs)} | ${fmt.us(fn.modernUs)} | +${fmt.us(fn.us)} |`),
    );
  }
  return lines.join('\n');
}
