// The "What may import what" table of docs/architecture.md, as checks:
// `npm run check` runs `depcruise src views`, and a wrong arrow fails it.
// Type-only imports count like any other (tsPreCompilationDeps), since a
// type drags its module's concepts in all the same.
//
// Each rule names a part, then what it may import besides itself and
// Node's own modules. Paths are repository-relative.

/** A part may import only these (and itself, and node: modules). */
function only(name, from, allowed, comment) {
  return {
    name,
    comment,
    severity: 'error',
    from: { path: from },
    to: { pathNot: [from, ...allowed], dependencyTypesNot: ['core'] },
  };
}

/** `from` must never import `to`. */
function never(name, from, to, comment) {
  return { name, comment, severity: 'error', from: { path: from }, to: { path: to } };
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycle, type-only ones included: each module can be read, and loaded, before the ones that use it.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    only('probe', '^src/probe/', ['^node_modules/node-gyp-build/'], 'The probe knows nothing of the other layers.'),
    only('scan', '^src/scan/', ['^src/probe/'], 'The directory walk is a probe: it uses the probe and nothing else.'),
    only(
      'explain',
      '^src/explain/',
      ['^src/probe/', '^src/scan/', '^src/format/'],
      'Explain is a probe: it measures with the probe and the walk, and words its advice with src/format/.',
    ),
    only('jsonrpc', '^src/jsonrpc/', [], 'JSON-RPC knows nothing of MCP, disks or transports.'),
    only('format', '^src/format/', [], 'Text formatting knows nothing of the other layers.'),
    only('apps', '^src/apps/', [], 'The MCP Apps views, as served: the MCP layer reads them; they import nothing.'),
    only('fleet', '^src/fleet/', ['^src/probe/types\\.ts$'], "The Prometheus client speaks HTTP and PromQL; of the probe it knows only CancelSignal's type."),
    only(
      'stdio transport',
      '^src/transport/stdio/',
      ['^src/jsonrpc/'],
      'The stdio transport frames lines for the JSON-RPC dispatcher, and knows nothing of MCP.',
    ),
    only(
      'http transport',
      '^src/transport/http/',
      ['^src/jsonrpc/', '^node_modules/jose/'],
      'Streamable HTTP knows JSON-RPC; what it must know of MCP comes in as options from src/cli/serve/serveHttp.ts.',
    ),
    only(
      'oauth',
      '^src/transport/http/auth/',
      ['^src/transport/http/(access|loopback)\\.ts$', '^node_modules/jose/'],
      'The OAuth resource server imports nothing of the other layers.',
    ),
    only(
      'metrics',
      '^src/metrics/',
      ['^src/probe/', '^src/transport/http/(access|listening)\\.ts$', '^src/transport/http/auth/'],
      "The exporter reads the probe and serves /metrics with the HTTP transport's access checks and OAuth.",
    ),
    only(
      'mcp',
      '^src/mcp/',
      [
        '^src/index\\.ts$',
        '^src/probe/',
        '^src/scan/(directoryUsage|types)\\.ts$',
        '^src/explain/(explainUsage|explanationText|types)\\.ts$',
        '^src/format/',
        '^src/fleet/',
        '^src/apps/',
        '^src/jsonrpc/(errors|messages|dispatcher|requestSignal)\\.ts$',
      ],
      'MCP knows the protocol, not how bytes arrive: the probe, text, the fleet and the views below it, JSON-RPC only for RpcError and the handler interface.',
    ),
    only('library', '^src/index\\.ts$', ['^src/probe/', '^src/scan/', '^src/explain/'], 'The library is the probe, the walk and explain alone.'),
    only(
      'views',
      '^views/',
      ['^src/format/(humanSize|counted|mountLabel)\\.ts$'],
      "The browser views talk only to their host; of the server they share the tools' formatters of sizes, counts and mounts.",
    ),
    never(
      'protocol apart from features',
      '^src/mcp/protocol/',
      '^src/mcp/(features/|server\\.ts$)',
      "MCP's protocol never imports its features; src/mcp/server.ts wires the two.",
    ),
    never('features below the server', '^src/mcp/features/', '^src/mcp/server\\.ts$', 'A feature is called by the server, never the other way round.'),
    never('wired only in the CLI', '^src/(?!cli/)', '^src/cli/', 'Only src/cli wires the layers; nothing else imports it.'),
    {
      name: 'one command, one folder',
      comment: "A command's folder (src/cli/df/, du/, serve/, metrics/) does not import another's: what two share lives at src/cli/.",
      severity: 'error',
      from: { path: '^src/cli/([^/]+)/' },
      to: { path: '^src/cli/[^/]+/', pathNot: '^src/cli/$1/' },
    },
  ],
  options: {
    // TypeScript 7 has no JavaScript API for dependency-cruiser to parse with; swc parses TypeScript.
    parser: 'swc',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.d\\.ts$' },
  },
};
