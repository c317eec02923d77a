// Reads what a prebuilt addon says about itself, from its bytes alone: the
// format and CPU, the oldest OS it claims to run on, the libraries it needs,
// every symbol it imports (and from where) and every symbol it exports. For
// the static checks of the prebuilds this machine cannot run (macOS,
// Windows on Arm) and the libc checks of the ones it can
// (test/unit/prebuildBinaries.test.ts, npm run prebuilds).
//
// 64-bit little-endian ELF, 64-bit Mach-O and PE32+ only: every prebuild is
// one of those. Anything else is an error that names the file.
//   ELF:    System V gABI, "Dynamic Section" and "Symbol Table"; symbol
//           versioning per the LSB ("Symbol Versioning").
//   Mach-O: <mach-o/loader.h> and <mach-o/nlist.h>.
//   PE:     Microsoft, "PE Format" (import, export and delay-load directories).

/** @typedef {{ lib: string | undefined, name: string, version?: string }} Import */
/**
 * @typedef {{
 *   format: 'elf' | 'macho' | 'pe',
 *   machine: string,
 *   minOs: string | undefined,
 *   needed: string[],
 *   imports: Import[],
 *   exports: string[],
 *   installName?: string,
 *   delayLoaded?: string[],
 * }} BinaryFacts
 */

/** The facts of the binary in `bytes` (a Buffer); `label` names it in errors. */
export function binaryFacts(bytes, label = 'the binary') {
  if (bytes.length >= 4 && bytes.readUInt32BE(0) === 0x7f454c46) return elfFacts(bytes, label);
  if (bytes.length >= 4 && bytes.readUInt32LE(0) === 0xfeedfacf) return machoFacts(bytes, label);
  if (bytes.length >= 2 && bytes.readUInt16LE(0) === 0x5a4d) return peFacts(bytes, label);
  throw new Error(`${label}: not a 64-bit ELF, Mach-O or PE file (it starts ${bytes.subarray(0, 4).toString('hex') || 'empty'})`);
}

/** A NUL-terminated string at `offset`. */
function cString(bytes, offset) {
  const end = bytes.indexOf(0, offset);
  return bytes.toString('latin1', offset, end === -1 ? bytes.length : end);
}

function need(condition, label, what) {
  if (!condition) throw new Error(`${label}: ${what}`);
}

// ---------------------------------------------------------------- ELF

const ELF_MACHINES = { 62: 'x86-64', 183: 'aarch64' };
const SHT_DYNSYM = 11;
const SHT_DYNAMIC = 6;
const SHT_GNU_VERSYM = 0x6fffffff;
const SHT_GNU_VERNEED = 0x6ffffffe;
const DT_NEEDED = 1;

function elfFacts(bytes, label) {
  need(bytes[4] === 2 && bytes[5] === 1, label, 'an ELF file that is not 64-bit little-endian');
  const machine = ELF_MACHINES[bytes.readUInt16LE(18)] ?? `ELF machine ${bytes.readUInt16LE(18)}`;
  const shoff = Number(bytes.readBigUInt64LE(40));
  const shentsize = bytes.readUInt16LE(58);
  const shnum = bytes.readUInt16LE(60);
  need(shoff > 0 && shoff + shnum * shentsize <= bytes.length, label, 'its section headers lie outside the file');
  const sections = Array.from({ length: shnum }, (_, index) => {
    const at = shoff + index * shentsize;
    return {
      type: bytes.readUInt32LE(at + 4),
      offset: Number(bytes.readBigUInt64LE(at + 24)),
      size: Number(bytes.readBigUInt64LE(at + 32)),
      link: bytes.readUInt32LE(at + 40),
      entsize: Number(bytes.readBigUInt64LE(at + 56)),
    };
  });
  const dynsym = sections.find((section) => section.type === SHT_DYNSYM);
  const dynamic = sections.find((section) => section.type === SHT_DYNAMIC);
  need(dynsym !== undefined && dynamic !== undefined, label, 'no dynamic symbol table: not a shared object');
  const dynstr = sections[dynsym.link];
  const name = (offset) => cString(bytes, dynstr.offset + offset);

  const needed = [];
  for (let at = dynamic.offset; at + 16 <= dynamic.offset + dynamic.size; at += 16) {
    const tag = bytes.readBigInt64LE(at);
    if (tag === 0n) break;
    if (tag === BigInt(DT_NEEDED)) needed.push(cString(bytes, sections[dynamic.link].offset + Number(bytes.readBigUInt64LE(at + 8))));
  }

  // Version index -> the version name and file it is needed from (.gnu.version_r).
  const versionOf = new Map();
  const verneed = sections.find((section) => section.type === SHT_GNU_VERNEED);
  if (verneed !== undefined) {
    const strings = sections[verneed.link].offset;
    for (let at = verneed.offset, more = true; more; ) {
      const count = bytes.readUInt16LE(at + 2);
      const file = cString(bytes, strings + bytes.readUInt32LE(at + 4));
      for (let aux = at + bytes.readUInt32LE(at + 8), left = count; left > 0; left--) {
        versionOf.set(bytes.readUInt16LE(aux + 6), { file, version: cString(bytes, strings + bytes.readUInt32LE(aux + 8)) });
        const step = bytes.readUInt32LE(aux + 12);
        if (step === 0) break;
        aux += step;
      }
      const next = bytes.readUInt32LE(at + 12);
      more = next !== 0;
      at += next;
    }
  }
  const versym = sections.find((section) => section.type === SHT_GNU_VERSYM);

  const imports = [];
  const exports = [];
  const count = dynsym.size / (dynsym.entsize || 24);
  for (let index = 1; index < count; index++) {
    const at = dynsym.offset + index * 24;
    const info = bytes[at + 4];
    const bind = info >> 4;
    const visibility = bytes[at + 5] & 3;
    const shndx = bytes.readUInt16LE(at + 6);
    const symbol = name(bytes.readUInt32LE(at));
    if (bind !== 1 && bind !== 2) continue; // local
    if (shndx === 0) {
      const version = versym === undefined ? undefined : versionOf.get(bytes.readUInt16LE(versym.offset + index * 2) & 0x7fff);
      imports.push(version === undefined ? { lib: undefined, name: symbol } : { lib: version.file, name: symbol, version: version.version });
    } else if (visibility === 0) {
      exports.push(symbol);
    }
  }
  return { format: 'elf', machine, minOs: undefined, needed, imports, exports };
}

// ---------------------------------------------------------------- Mach-O

const MACHO_CPUS = new Map([
  [0x01000007, 'x86-64'],
  [0x0100000c, 'arm64'],
]);
const LC_SYMTAB = 0x2;
const LC_LOAD_DYLIB = 0xc;
const LC_ID_DYLIB = 0xd;
const LC_VERSION_MIN_MACOSX = 0x24;
const LC_BUILD_VERSION = 0x32;
const LC_LOAD_WEAK_DYLIB = 0x80000018;
const LC_REEXPORT_DYLIB = 0x8000001f;
const LC_DYLD_INFO = 0x22;
const LC_DYLD_INFO_ONLY = 0x80000022;
const LC_DYLD_CHAINED_FIXUPS = 0x80000034;

/** Who a Mach-O import binds to, by its library ordinal: a dylib of `needed` (1-based), or one of the special ordinals. */
function ordinalLibrary(ordinal, needed) {
  if (ordinal > 0) return needed[ordinal - 1] ?? `(ordinal ${ordinal})`;
  return { 0: '(self)', '-1': '(main executable)', '-2': '(dynamic lookup)', '-3': '(weak lookup)' }[ordinal] ?? `(ordinal ${ordinal})`;
}

function uleb(bytes, state) {
  let value = 0n;
  for (let shift = 0n; ; shift += 7n) {
    const byte = bytes[state.at++];
    value |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return value;
  }
}

/** The (ordinal, symbol) pairs of dyld's bind opcodes (<mach-o/loader.h>, BIND_OPCODE_*), as x86-64 binaries carry them. */
function bindOpcodeImports(bytes, start, size) {
  const found = [];
  const state = { at: start };
  let ordinal = 0;
  let name = '';
  while (state.at < start + size) {
    const byte = bytes[state.at++];
    const immediate = byte & 0x0f;
    switch (byte & 0xf0) {
      case 0x00: // DONE: ends one lazy binding; the stream goes on
      case 0x50: // SET_TYPE_IMM
      case 0xb0: // DO_BIND_ADD_ADDR_IMM_SCALED
        if ((byte & 0xf0) === 0xb0) found.push([ordinal, name]);
        break;
      case 0x10:
        ordinal = immediate;
        break;
      case 0x20:
        ordinal = Number(uleb(bytes, state));
        break;
      case 0x30:
        ordinal = immediate === 0 ? 0 : (immediate | 0xf0) - 0x100;
        break;
      case 0x40:
        name = cString(bytes, state.at);
        state.at += Buffer.byteLength(name, 'latin1') + 1;
        break;
      case 0x60: // SET_ADDEND_SLEB
      case 0x70: // SET_SEGMENT_AND_OFFSET_ULEB
      case 0x80: // ADD_ADDR_ULEB
        uleb(bytes, state);
        break;
      case 0x90:
        found.push([ordinal, name]);
        break;
      case 0xa0:
        uleb(bytes, state);
        found.push([ordinal, name]);
        break;
      case 0xc0:
        uleb(bytes, state);
        uleb(bytes, state);
        found.push([ordinal, name]);
        break;
      case 0xd0: // THREADED: SET_BIND_ORDINAL_TABLE_SIZE_ULEB takes a number, APPLY none
        if (immediate === 0) uleb(bytes, state);
        break;
      default:
        throw new Error(`bind opcode 0x${byte.toString(16)}`);
    }
  }
  return found;
}

/** The (ordinal, symbol) pairs of the chained fixups' import table (<mach-o/fixup-chains.h>), as arm64 binaries carry them. */
function chainedFixupImports(bytes, start) {
  const importsOffset = start + bytes.readUInt32LE(start + 8);
  const symbolsOffset = start + bytes.readUInt32LE(start + 12);
  const count = bytes.readUInt32LE(start + 16);
  const format = bytes.readUInt32LE(start + 20);
  const found = [];
  for (let index = 0; index < count; index++) {
    let ordinal;
    let nameOffset;
    if (format === 3) {
      const value = bytes.readBigUInt64LE(importsOffset + index * 16);
      ordinal = Number(value & 0xffffn);
      ordinal = ordinal > 0xfff0 ? ordinal - 0x10000 : ordinal;
      nameOffset = Number(value >> 32n);
    } else {
      const value = bytes.readUInt32LE(importsOffset + index * (format === 2 ? 8 : 4));
      ordinal = value & 0xff;
      ordinal = ordinal > 0xf0 ? ordinal - 0x100 : ordinal;
      nameOffset = value >>> 9;
    }
    found.push([ordinal, cString(bytes, symbolsOffset + nameOffset)]);
  }
  return found;
}

/** A Mach-O packed version, xxxx.yy.zz, as "x.y" (and ".z" when not 0). */
function machoVersion(packed) {
  const [major, minor, patch] = [packed >>> 16, (packed >>> 8) & 0xff, packed & 0xff];
  return patch === 0 ? `${major}.${minor}` : `${major}.${minor}.${patch}`;
}

function machoFacts(bytes, label) {
  const machine = MACHO_CPUS.get(bytes.readUInt32LE(4)) ?? `Mach-O CPU ${bytes.readUInt32LE(4).toString(16)}`;
  const ncmds = bytes.readUInt32LE(16);
  const needed = [];
  let minOs;
  let installName;
  let symtab;
  let bindings;
  for (let at = 32, index = 0; index < ncmds; index++) {
    const command = bytes.readUInt32LE(at);
    const size = bytes.readUInt32LE(at + 4);
    need(size >= 8 && at + size <= bytes.length, label, `load command ${index} runs past the end of the file`);
    if (command === LC_LOAD_DYLIB || command === LC_LOAD_WEAK_DYLIB || command === LC_REEXPORT_DYLIB)
      needed.push(cString(bytes, at + bytes.readUInt32LE(at + 8)));
    else if (command === LC_ID_DYLIB) installName = cString(bytes, at + bytes.readUInt32LE(at + 8));
    else if (command === LC_BUILD_VERSION) minOs = machoVersion(bytes.readUInt32LE(at + 12));
    else if (command === LC_VERSION_MIN_MACOSX) minOs = machoVersion(bytes.readUInt32LE(at + 8));
    else if (command === LC_SYMTAB) symtab = { symoff: bytes.readUInt32LE(at + 8), nsyms: bytes.readUInt32LE(at + 12), stroff: bytes.readUInt32LE(at + 16) };
    else if (command === LC_DYLD_CHAINED_FIXUPS) bindings = chainedFixupImports(bytes, bytes.readUInt32LE(at + 8));
    else if (command === LC_DYLD_INFO || command === LC_DYLD_INFO_ONLY) {
      // bind, weak bind and lazy bind: (offset, size) pairs at 16, 24 and 32.
      bindings = [16, 24, 32].flatMap((field) => bindOpcodeImports(bytes, bytes.readUInt32LE(at + field), bytes.readUInt32LE(at + field + 4)));
    }
    at += size;
  }
  need(symtab !== undefined, label, 'no symbol table');
  // What dyld binds, and to which library, is in the bind opcodes or the
  // chained fixups; the symbol table's ordinals are only a fallback.
  const imports = [];
  const exports = [];
  const unbound = [];
  for (let index = 0; index < symtab.nsyms; index++) {
    const at = symtab.symoff + index * 16;
    const type = bytes[at + 4];
    if (type & 0xe0) continue; // a debugging (stab) entry
    const external = (type & 0x01) !== 0;
    const privateExternal = (type & 0x10) !== 0;
    const kind = type & 0x0e;
    const symbol = cString(bytes, symtab.stroff + bytes.readUInt32LE(at));
    if (kind === 0x0 && external) {
      const ordinal = bytes.readUInt16LE(at + 6) >> 8;
      unbound.push([ordinal > 0xf0 ? ordinal - 0x100 : ordinal, symbol]);
    } else if (kind === 0xe && external && !privateExternal) {
      exports.push(symbol);
    }
  }
  const seen = new Set();
  for (const [ordinal, symbol] of bindings ?? unbound) {
    if (seen.has(`${ordinal} ${symbol}`)) continue;
    seen.add(`${ordinal} ${symbol}`);
    imports.push({ lib: ordinalLibrary(ordinal, needed), name: symbol });
  }
  return { format: 'macho', machine, minOs, needed, imports, exports, installName };
}

// ---------------------------------------------------------------- PE

const PE_MACHINES = new Map([
  [0x8664, 'x86-64'],
  [0xaa64, 'arm64'],
]);

function peFacts(bytes, label) {
  const pe = bytes.readUInt32LE(0x3c);
  need(bytes.readUInt32BE(pe) === 0x50450000, label, 'an MZ file without a PE header');
  const coff = pe + 4;
  const machine = PE_MACHINES.get(bytes.readUInt16LE(coff)) ?? `PE machine ${bytes.readUInt16LE(coff).toString(16)}`;
  const sectionCount = bytes.readUInt16LE(coff + 2);
  const optional = coff + 20;
  need(bytes.readUInt16LE(optional) === 0x20b, label, 'not PE32+ (64-bit)');
  const minOs = `${bytes.readUInt16LE(optional + 40)}.${bytes.readUInt16LE(optional + 42)}`;
  const directory = (index) => ({ rva: bytes.readUInt32LE(optional + 112 + index * 8), size: bytes.readUInt32LE(optional + 116 + index * 8) });
  const sectionTable = optional + bytes.readUInt16LE(coff + 16);
  const sections = Array.from({ length: sectionCount }, (_, index) => {
    const at = sectionTable + index * 40;
    return { rva: bytes.readUInt32LE(at + 12), size: Math.max(bytes.readUInt32LE(at + 8), bytes.readUInt32LE(at + 16)), raw: bytes.readUInt32LE(at + 20) };
  });
  const offset = (rva) => {
    const section = sections.find((candidate) => rva >= candidate.rva && rva < candidate.rva + candidate.size);
    need(section !== undefined, label, `RVA 0x${rva.toString(16)} is in no section`);
    return rva - section.rva + section.raw;
  };
  /** The names an import lookup table lists (64-bit thunks; ordinals as "#n"). */
  const thunkNames = (rva) => {
    const names = [];
    for (let at = offset(rva); ; at += 8) {
      const thunk = bytes.readBigUInt64LE(at);
      if (thunk === 0n) return names;
      names.push(thunk & (1n << 63n) ? `#${Number(thunk & 0xffffn)}` : cString(bytes, offset(Number(thunk & 0x7fffffffn)) + 2));
    }
  };

  const exports = [];
  const exportDirectory = directory(0);
  if (exportDirectory.rva !== 0) {
    const at = offset(exportDirectory.rva);
    const names = offset(bytes.readUInt32LE(at + 32));
    for (let index = 0; index < bytes.readUInt32LE(at + 24); index++) exports.push(cString(bytes, offset(bytes.readUInt32LE(names + index * 4))));
  }
  const needed = [];
  const imports = [];
  const importDirectory = directory(1);
  if (importDirectory.rva !== 0) {
    for (let at = offset(importDirectory.rva); bytes.readUInt32LE(at + 12) !== 0; at += 20) {
      const lib = cString(bytes, offset(bytes.readUInt32LE(at + 12)));
      needed.push(lib);
      const lookup = bytes.readUInt32LE(at) || bytes.readUInt32LE(at + 16);
      for (const name of thunkNames(lookup)) imports.push({ lib, name });
    }
  }
  const delayLoaded = [];
  const delayDirectory = directory(13);
  if (delayDirectory.rva !== 0) {
    for (let at = offset(delayDirectory.rva); bytes.readUInt32LE(at + 4) !== 0; at += 32) {
      const lib = cString(bytes, offset(bytes.readUInt32LE(at + 4)));
      delayLoaded.push(lib);
      for (const name of thunkNames(bytes.readUInt32LE(at + 16))) imports.push({ lib, name, delayLoaded: true });
    }
  }
  return { format: 'pe', machine, minOs, needed, imports, exports, delayLoaded };
}
