// Checks tool arguments against the tool's inputSchema: the schema shown to
// the model is the schema enforced. Tools here use a small, flat subset of
// JSON Schema (an object of string, boolean and number properties, with
// enum, pattern, minimum, maximum, required and additionalProperties: false).
// PropertySchema admits nothing else, so a tool cannot declare a rule that
// goes unenforced.

interface PropertySchema {
  readonly type: 'string' | 'boolean' | 'integer' | 'number';
  readonly description: string;
  readonly enum?: readonly string[];
  readonly pattern?: string;
  /** For numbers: the least value allowed. */
  readonly minimum?: number;
  /** For numbers: the greatest value allowed. */
  readonly maximum?: number;
}

export interface ObjectSchema {
  readonly type: 'object';
  readonly properties: Readonly<Record<string, PropertySchema>>;
  readonly required?: readonly string[];
  readonly additionalProperties: false;
}

/**
 * The problems with `args` (an empty list when they are valid), each naming
 * the argument and saying what is expected. `hints` adds advice to pattern
 * failures, since a regular expression is a poor message.
 */
export function validateArguments(schema: ObjectSchema, args: unknown, hints: Readonly<Record<string, string>> = {}): string[] {
  if (args === undefined) args = {};
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return ['"arguments" must be an object'];
  const problems: string[] = [];
  const given = args as Record<string, unknown>;
  for (const name of schema.required ?? []) {
    if (!Object.hasOwn(given, name)) problems.push(`"${name}" is required`);
  }
  for (const [name, value] of Object.entries(given)) {
    const property = Object.hasOwn(schema.properties, name) ? schema.properties[name] : undefined;
    if (property === undefined) {
      problems.push(
        `unknown argument "${name}"; expected only ${Object.keys(schema.properties)
          .map((key) => `"${key}"`)
          .join(', ')}`,
      );
      continue;
    }
    const problem = checkValue(name, property, value, hints[name]);
    if (problem) problems.push(problem);
  }
  return problems;
}

/** Compiled patterns: a tool's few are compiled once, not on every call. */
const patterns = new Map<string, RegExp>();
function patternOf(source: string): RegExp {
  let pattern = patterns.get(source);
  if (pattern === undefined) {
    pattern = new RegExp(source, 'u');
    patterns.set(source, pattern);
  }
  return pattern;
}

function checkValue(name: string, property: PropertySchema, value: unknown, hint: string | undefined): string | undefined {
  const typeOk =
    property.type === 'string'
      ? typeof value === 'string'
      : property.type === 'boolean'
        ? typeof value === 'boolean'
        : property.type === 'integer'
          ? Number.isInteger(value)
          : typeof value === 'number' && Number.isFinite(value);
  if (!typeOk)
    return `"${name}" must be ${property.type === 'integer' ? 'an' : 'a'} ${property.type}, not ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`;
  if (property.enum && !property.enum.includes(value as string)) {
    return `"${name}" must be one of ${property.enum.map((option) => JSON.stringify(option)).join(', ')}, not ${JSON.stringify(value)}`;
  }
  if (property.pattern && !patternOf(property.pattern).test(value as string)) {
    return `"${name}" is ${JSON.stringify(value)}: ${hint ?? `it must match ${property.pattern}`}`;
  }
  if (property.minimum !== undefined && (value as number) < property.minimum) return `"${name}" must be at least ${property.minimum}, not ${String(value)}`;
  if (property.maximum !== undefined && (value as number) > property.maximum) return `"${name}" must be at most ${property.maximum}, not ${String(value)}`;
  return undefined;
}
