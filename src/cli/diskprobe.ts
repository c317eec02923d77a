#!/usr/bin/env node
// The diskprobe command's entry: the bin, dist/bin/diskprobe.js, a hundred
// bytes. Its only work is to have SIGTERM and SIGINT handled before Node
// reads the command itself (issue 27).
//
// Node parses all of a module graph before it evaluates any of it: when the
// handlers were installed by the command's first statement, a signal during
// the parse of its 490 KB bundle still killed the server, in a window 20-50
// ms longer than Node's own start-up on a 2-vCPU VM. Here, the static import
// below is the whole graph Node parses first; the command (main.ts, split
// into chunks by scripts/bundle-cli.mjs) is loaded by a dynamic import only
// once the handlers are in place.
//
// stopSignals.ts becomes a chunk of its own, shared by this entry and the
// command, loaded once. It cannot live in this file: the command would then
// import the module that is awaiting the command, and wait for it. (A static
// import here also keeps esbuild from evaluating it after other chunks.)
import './stopSignals.js';

await import('./main.js');
