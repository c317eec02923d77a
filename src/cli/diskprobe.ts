#!/usr/bin/env node
// The diskprobe command's entry: the bin, dist/bin/diskprobe.js, a hundred
// bytes. Its only work is to have SIGTERM and SIGINT handled before Node
// reads the command itself (issue 27).
//
// The command is one bundle of about 490 KB (dist/bin/main.js), and Node
// parses all of a module graph before it evaluates any of it: when the
// handlers were installed by the bundle's first statement, a signal during
// that parse still killed the server, in a window 20-50 ms longer than
// Node's own start-up on a 2-vCPU VM. Here, the static import below is the
// whole graph Node parses first; the bundle is loaded by a dynamic import
// only once the handlers are in place.
//
// stopSignals.js is its own file beside both, loaded once and shared by the
// entry and the bundle, whose imports of it are left external
// (scripts/bundle-cli.mjs). It cannot live in this file: the bundle would
// then import the module that is awaiting the bundle, and wait for it.
import './stopSignals.js';

await import('./main.js');
