// JSON with bigints written as plain integers. JSON.stringify throws on a
// bigint, and converting to number first loses digits above 2^53; Node 20
// has no JSON.rawJSON. So this small serializer writes the digits itself,
// and otherwise prints what JSON.stringify(value, null, indent) prints.

/** `value` as pretty-printed JSON, each bigint as its exact digits. */
export function stringifyExact(value: unknown, indent = 2): string {
  return write(value, '', ' '.repeat(indent)) ?? 'null';
}

/** One value at nesting `margin`; undefined for what JSON leaves out (undefined, functions, symbols). */
function write(value: unknown, margin: string, step: string): string | undefined {
  switch (typeof value) {
    case 'bigint':
      return value.toString();
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return 'null';
  const inner = margin + step;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const items = value.map((item: unknown) => inner + (write(item, inner, step) ?? 'null'));
    return `[\n${items.join(',\n')}\n${margin}]`;
  }
  const members: string[] = [];
  for (const [key, member] of Object.entries(value)) {
    const text = write(member, inner, step);
    if (text !== undefined) members.push(`${inner}${JSON.stringify(key)}: ${text}`);
  }
  return members.length === 0 ? '{}' : `{\n${members.join(',\n')}\n${margin}}`;
}
