// What --help prints: a summary of the commands, or one command's own
// options. A new command adds its line to COMMANDS and its text to helpText.

import { LOG_LEVELS } from '../mcp/protocol/logging.js';
import { DEFAULT_TIMEOUT_MS, DEFAULT_WALK_BUDGET_MS, MAX_TIMEOUT_MS } from '../probe/limits.js';
import { DEFAULT_AUTH_SCOPE } from './authCommandLine.js';
import type { CommandName } from './commandLine.js';
import { METRICS_TIMEOUT_MS } from './metrics/metricsCommandLine.js';
import { DEFAULT_MAX_MESSAGE_BYTES, HTTP_DEFAULTS, PROMETHEUS_TIMEOUT_MS } from './serve/serveCommandLine.js';

/** The commands, each with its one-line summary, in the order --help lists them. */
const COMMANDS: ReadonlyArray<readonly [CommandName, string]> = [
  ['serve', 'Run the MCP server on stdin and stdout, or over HTTP (the default)'],
  ['df', 'Show disk usage as GNU df does, for every mount or each path given'],
  ['du', 'Show what directories take, as GNU du does, or those holding the most (--top)'],
  ['explain', 'Account for every byte df says is used: files, deleted files still open, files under mounts'],
  ['metrics', "Print disk usage as Prometheus metrics (node_exporter's names), or serve them"],
];

const OWN_OPTIONS = `  -h, --help            Show this help
  --version             Print diskprobe's version`;

/** The OAuth options, which `serve --http` and `metrics --listen` share; `endpoint` is the path they protect. */
function authOptions(endpoint: string): string {
  return `  --auth-issuer <url>   Require OAuth access tokens (JWTs) from this authorization
                        server, exactly as its tokens' iss names it; repeat to
                        trust several (the first is the one clients are shown)
  --auth-audience <url> The URL tokens must be for (default: this server's own,
                        http://<host>:<port>/${endpoint})
  --auth-scope <scope>  A scope every token must grant; repeat for several
                        (default ${DEFAULT_AUTH_SCOPE})
  --auth-plain-jwt      Also accept access tokens typed JWT rather than at+jwt
                        (Keycloak, Entra ID, Okta)
  --auth-introspection <file>
                        Introspect opaque tokens at the issuer (RFC 7662), as the
                        client in this JSON file: {"client_id", "client_secret"}`;
}

function overview(): string {
  const width = Math.max(...COMMANDS.map(([name]) => name.length)) + 2;
  return `Usage: diskprobe [command] [options]

Disk usage that is exact and never hangs on a dead mount.

Commands:
${COMMANDS.map(([name, summary]) => `  ${name.padEnd(width)}${summary}`).join('\n')}

Run 'diskprobe <command> --help' for a command's options and exit status.

Options:
${OWN_OPTIONS}
`;
}

function serveHelp(): string {
  return `Usage: diskprobe [serve] [options]

Run the MCP server on stdin and stdout (what MCP hosts start), or over HTTP.

Options:
  --probe-timeout <ms>  Give each file system this long to answer (default ${DEFAULT_TIMEOUT_MS})
  --walk-budget <ms>    How long directory_usage walks within one call before it
                        answers with what it has, the walk going on (default ${DEFAULT_WALK_BUDGET_MS})
  --log-level <level>   Least severe log level sent to the client until it sets
                        one: ${LOG_LEVELS.join(', ')} (default warning)
  --max-message-bytes <n>
                        Refuse longer messages with -32600 (default ${DEFAULT_MAX_MESSAGE_BYTES})
  --root <dir>...       Report only on paths under <dir> (symlinks resolved);
                        repeat, or give several after one --root. Default: every path
  --http [host:]port    Serve MCP over Streamable HTTP at /mcp instead of stdio,
                        on 127.0.0.1 unless a host is given
  --token-file <path>   Require this bearer token (the file's first line) on every
                        HTTP request; needed off loopback. DISKPROBE_TOKEN may
                        give the token instead
${authOptions('mcp')}
  --tls-cert <path>, --tls-key <path>
                        Serve HTTPS with this PEM certificate and key
  --max-connections <n> Connections open at once (default ${HTTP_DEFAULTS.maxConnections})
  --max-requests <n>    Requests answered at once, streams included; more get 503
                        (default ${HTTP_DEFAULTS.maxRequests})
  --max-sessions <n>    2025-era sessions open at once (default ${HTTP_DEFAULTS.maxSessions})
  --session-idle-timeout <ms>
                        End a session idle this long (default ${HTTP_DEFAULTS.sessionIdleMs})
  --header-timeout <ms> Cut a client that takes longer to send its headers
                        (default ${HTTP_DEFAULTS.headerTimeoutMs})
  --prometheus <url>    Offer the fleet tools (fleet_disk_usage, disk_fill_forecast),
                        asking this Prometheus's HTTP API (any path prefix kept).
                        DISKPROBE_PROMETHEUS_URL may give it instead
  --prometheus-token-file <path>
                        Send the file's first line as a bearer token (read again
                        for every call)
  --prometheus-ca <path>
                        Trust these PEM certificates for an https Prometheus
  --prometheus-selector <matchers>
                        Add these label matchers to every query, e.g. 'job="node"'
  --prometheus-timeout <ms>
                        Give a tool's queries this long in all (default ${PROMETHEUS_TIMEOUT_MS})
${OWN_OPTIONS}

Exit status: 0 once the input has ended and everything was answered,
2 if the command line was wrong.
`;
}

function metricsHelp(): string {
  return `Usage: diskprobe metrics [options]

Print disk usage as Prometheus metrics, with node_exporter's filesystem names,
once; or serve them (--listen).

Options:
  --listen [host:]port  Serve GET /metrics here (127.0.0.1 unless a host is given)
  --timeout <ms>        Longest a scrape may take (default ${METRICS_TIMEOUT_MS}); a mount that has
                        not answered by then is reported as "mountpoint timeout"
  --prefix <name>       Name the filesystem families <name>_size_bytes, ... instead of
                        node_filesystem_..., for use beside node_exporter's own collector
  --mount-points-exclude <regex>, --fs-types-exclude <regex>
                        Which mounts to leave out (node_exporter's defaults)
  --token-file <path>   Require this bearer token (or DISKPROBE_TOKEN) on every scrape
${authOptions('metrics')}
  --allow-remote        Listen off loopback without a token
${OWN_OPTIONS}

Exit status: 0 if all went well, 2 if the command line was wrong.
`;
}

function dfHelp(): string {
  return `Usage: diskprobe df [option]... [path]...

Show the usage of the file system holding each path, or of every mounted file
system, exactly as GNU df shows it; a file system that does not answer in time
is shown as "not responding" instead of hanging the command.
With no format option (-h -H -B -k -m -P -i -T --output), the table is
df -hT's.

GNU df's options:
  -a, --all             Include pseudo, duplicate and inaccessible file systems
  -B, --block-size=SIZE Scale sizes by SIZE: 1K, 1M, 1KB (1000), 512, 'human-readable', 'si'...
  -h, --human-readable  Print sizes in powers of 1024 (e.g. 1023M)
  -H, --si              Print sizes in powers of 1000 (e.g. 1.1G)
  -i, --inodes          Show inodes instead of blocks
  -k                    Like --block-size=1K
  -m                    Like --block-size=1M
  -l, --local           Only local file systems
  --output[=FIELD_LIST] Show these columns: source, fstype, itotal, iused, iavail,
                        ipcent, size, used, avail, pcent, file, target (all when none)
  -P, --portability     POSIX's output format
  --total               Add a row of totals
  -t, --type=TYPE       Only file systems of type TYPE (repeatable)
  -T, --print-type      Show the file system type
  -x, --exclude-type=TYPE
                        No file systems of type TYPE (repeatable)
  --sync, --no-sync, -v Accepted and ignored, as df ignores -v

diskprobe's own:
  --json                Exact JSON (integers, even above 2^53), every path or mount
                        asked about, failures included, instead of a table
  --timeout <ms>        Give each file system this long to answer (default ${DEFAULT_TIMEOUT_MS},
                        at most ${MAX_TIMEOUT_MS})
  --help                Show this help (-h is df's --human-readable here)
  --version             Print diskprobe's version

SIZE, DF_BLOCK_SIZE, BLOCK_SIZE, BLOCKSIZE and POSIXLY_CORRECT mean what they
mean to GNU df.

Exit status: 0 if all went well, 1 if a path failed, a file system did not
answer, nothing was shown, or the command line was wrong.
`;
}

function explainHelp(): string {
  return `Usage: diskprobe explain [options] [PATH]
Why df and du disagree on the file system holding PATH (default /): df's Used,
split into the files a walk sees (du -x), deleted files still held open or
mapped by a process, files hidden under mount points, and what is left; beside
it, the reserve df counts as neither used nor available. Then what to do about
each part, and what could not be seen (and why).

  --json                Exact JSON instead: what explainUsage() answers
  --timeout <ms>        Answer by then with what was measured; the walk's part
                        then counts only what it had found (default: no limit)
  --probe-timeout <ms>  How long the file system, a stat of a held file, or a
                        walk may not answer before that part is given up
                        (default ${DEFAULT_TIMEOUT_MS})
${OWN_OPTIONS}

As root it sees every process and looks beneath mount points; as another user
it says which processes it could not read and that hidden files need
CAP_SYS_ADMIN, and never counts what it did not see as 0. See docs/explain.md.

Exit status: 0 if every part was measured, 1 if something could not be seen
(the answer is still printed) or the file system could not be probed, 2 if the
command line was wrong.
`;
}

function duHelp(): string {
  return `Usage: diskprobe du [option]... [path]...

Show how much space each directory under each path takes (the current
directory when none is given), exactly as GNU du shows it, walking on
threads of its own; a mount that does not answer is named as unfinished
instead of hanging the command.

GNU du's options:
  -0, --null            End each line with NUL, not newline
  -a, --all             Show files too, not only directories
      --apparent-size   Show apparent sizes (st_size) rather than space used
  -B, --block-size=SIZE Scale sizes by SIZE: 1K, 1M, 1KB (1000), 512, 'human-readable', 'si'...
  -b, --bytes           Like --apparent-size --block-size=1
  -c, --total           Add a grand total
  -d, --max-depth=N     Show a directory (or file, with --all) only if it is N or
                        fewer levels below the path; -d 0 is -s
  -h, --human-readable  Print sizes in powers of 1024 (e.g. 1023M)
      --si              Print sizes in powers of 1000 (e.g. 1.1G)
  -k                    Like --block-size=1K
  -m                    Like --block-size=1M
  -P, --no-dereference  Never follow symlinks (the default, and the only way here)
  -s, --summarize       Show only a total for each path
  -x, --one-file-system Skip directories on other file systems

diskprobe's own:
  --top N               Instead of du's lines: each path's size, then its N directories
                        holding the most (by the files directly in them) and its N
                        largest files
  --json                Exact JSON instead: for each path, what directoryUsage() answers
                        (-d sets its depth, 1 by default; --top its lists, 10 by default)
  --timeout <ms>        Stop walking after this long: print what was found, name what
                        was not finished, exit 1 (default: no limit)
  --threads <n>         Threads each walk runs on (1 to 64; default 4)
  --help                Show this help (-h is du's --human-readable here)
  --version             Print diskprobe's version

SIZE, DU_BLOCK_SIZE, BLOCK_SIZE, BLOCKSIZE and POSIXLY_CORRECT mean what they
mean to GNU du. du's other options (-l, -L, -D, -H, -S, -t, -X, --exclude,
--files0-from, --inodes, --time) are refused. A directory reached twice (a
bind mount) is counted once; a walk that meets no progress for 5 s (a dead
mount) is stopped there. A long option of diskprobe's own must be spelled in
full where a shorter form is one of du's (--th is du's --threshold).

Exit status: 0 if all went well, 1 if anything could not be read or was not
finished, or the command line was wrong.
`;
}

/** The help for `topic`, or the summary of every command. */
export function helpText(topic?: CommandName): string {
  switch (topic) {
    case 'serve':
      return serveHelp();
    case 'metrics':
      return metricsHelp();
    case 'df':
      return dfHelp();
    case 'du':
      return duHelp();
    case 'explain':
      return explainHelp();
    default:
      return overview();
  }
}
