// The scopes a token grants (scope and scp, in every shape identity
// providers write them), and whether they cover what an operation needs:
// hierarchy by ':'-separated parts, never by characters.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { covers, grantedScopes, missingScopes, SCOPE_TOKEN } from '../../dist/transport/http/auth/scopes.js';

const set = (...scopes: string[]): Set<string> => new Set(scopes);
const sorted = (scopes: Set<string>): string[] => [...scopes].sort();

describe('grantedScopes', () => {
  it('reads `scope`, a space-separated string (RFC 9068), skipping empty items', () => {
    expect(sorted(grantedScopes({ scope: 'diskprobe:read diskprobe:metrics' }))).toEqual(['diskprobe:metrics', 'diskprobe:read']);
    expect(sorted(grantedScopes({ scope: '  diskprobe:read   other ' }))).toEqual(['diskprobe:read', 'other']);
    expect(sorted(grantedScopes({ scope: 'a a a' }))).toEqual(['a']);
  });

  it('reads `scp` as a string (Entra ID) and as an array (Okta)', () => {
    expect(sorted(grantedScopes({ scp: 'diskprobe:read other' }))).toEqual(['diskprobe:read', 'other']);
    expect(sorted(grantedScopes({ scp: ['diskprobe:read', 'other'] }))).toEqual(['diskprobe:read', 'other']);
  });

  it('merges `scope` and `scp` when both are present', () => {
    expect(sorted(grantedScopes({ scope: 'a b', scp: ['b', 'c'] }))).toEqual(['a', 'b', 'c']);
    expect(sorted(grantedScopes({ scope: 'a', scp: 'd e' }))).toEqual(['a', 'd', 'e']);
  });

  it('ignores what is not a string: numbers, objects, nulls, and such items of an array', () => {
    expect(sorted(grantedScopes({ scp: ['a', 1, null, { scope: 'x' }, ['b'], '', true, 'c'] }))).toEqual(['a', 'c']);
    expect(grantedScopes({ scope: 42, scp: { diskprobe: true } }).size).toBe(0);
    expect(grantedScopes({ scope: null, scp: undefined }).size).toBe(0);
  });

  it('grants nothing without the claims, or with empty ones', () => {
    expect(grantedScopes({}).size).toBe(0);
    expect(grantedScopes({ scope: '' }).size).toBe(0);
    expect(grantedScopes({ scope: '   ' }).size).toBe(0);
    expect(grantedScopes({ scp: [] }).size).toBe(0);
    // Other claims that look like scopes grant nothing.
    expect(grantedScopes({ scopes: 'diskprobe', roles: ['diskprobe'] }).size).toBe(0);
  });
});

describe('covers and missingScopes', () => {
  it('holds for the scope itself', () => {
    expect(covers(set('diskprobe:read'), 'diskprobe:read')).toBe(true);
    expect(covers(set('other', 'diskprobe:metrics'), 'diskprobe:metrics')).toBe(true);
    expect(covers(set(), 'diskprobe:read')).toBe(false);
  });

  it('holds for a broader scope by whole parts: diskprobe covers diskprobe:read, diskprobe:read covers diskprobe:read:mounts', () => {
    expect(covers(set('diskprobe'), 'diskprobe:read')).toBe(true);
    expect(covers(set('diskprobe'), 'diskprobe:read:mounts')).toBe(true);
    expect(covers(set('diskprobe:read'), 'diskprobe:read:mounts')).toBe(true);
  });

  it('never holds for a sibling, a narrower scope, or a prefix of characters', () => {
    expect(covers(set('diskprobe:read'), 'diskprobe:write')).toBe(false);
    expect(covers(set('diskprobe:read'), 'diskprobe')).toBe(false); // narrower does not cover broader
    expect(covers(set('diskprobe:read:mounts'), 'diskprobe:read')).toBe(false);
    expect(covers(set('disk'), 'diskprobe:read')).toBe(false);
    expect(covers(set('diskprobe:re'), 'diskprobe:read')).toBe(false);
    expect(covers(set('diskprobe:read'), 'diskprobe:readwrite')).toBe(false);
    expect(covers(set('read'), 'diskprobe:read')).toBe(false); // a suffix is no prefix
    expect(covers(set('Diskprobe'), 'diskprobe:read')).toBe(false); // case counts
  });

  it('lists the scopes not covered, in the order needed', () => {
    expect(missingScopes(set('diskprobe:read'), ['diskprobe:read', 'diskprobe:metrics', 'diskprobe:read:mounts'])).toEqual(['diskprobe:metrics']);
    expect(missingScopes(set('diskprobe'), ['diskprobe:read', 'diskprobe:metrics'])).toEqual([]);
    expect(missingScopes(set(), ['b', 'a'])).toEqual(['b', 'a']);
    expect(missingScopes(set('disk'), ['diskprobe:read'])).toEqual(['diskprobe:read']);
    expect(missingScopes(set('anything'), [])).toEqual([]);
  });

  it('works on what grantedScopes reads from claims', () => {
    expect(missingScopes(grantedScopes({ scp: ['diskprobe'] }), ['diskprobe:read'])).toEqual([]);
    expect(missingScopes(grantedScopes({ scope: 'diskprobe:metrics' }), ['diskprobe:read'])).toEqual(['diskprobe:read']);
  });
});

describe('covers, as a property', () => {
  // A small alphabet, so that scopes share parts and prefixes of characters often.
  const part = fc.string({ unit: fc.constantFrom('a', 'b', 'd', 'k'), minLength: 1, maxLength: 3 });
  const scope = fc.array(part, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(':'));
  const granted = fc.array(scope, { maxLength: 6 });
  /** The model: some granted scope's parts are the first parts of `needed` (the whole of it included). */
  const partPrefix = (grant: string, needed: string): boolean => {
    const g = grant.split(':');
    const n = needed.split(':');
    return g.length <= n.length && g.every((item, index) => item === n[index]);
  };

  it('makes scopes valid scope tokens (the generator is sound)', () => {
    fc.assert(fc.property(scope, (s) => SCOPE_TOKEN.test(s)));
  });

  it('always covers a granted scope, and every scope below it', () => {
    fc.assert(
      fc.property(granted, scope, fc.array(part, { maxLength: 3 }), (others, mine, below) => {
        const grants = new Set([...others, mine]);
        expect(covers(grants, mine)).toBe(true);
        expect(covers(grants, [mine, ...below].join(':'))).toBe(true);
        expect(missingScopes(grants, [mine])).toEqual([]);
      }),
    );
  });

  it('covers exactly when some granted scope is a prefix by whole parts', () => {
    fc.assert(
      fc.property(granted, scope, (grants, needed) => {
        const expected = grants.some((grant) => partPrefix(grant, needed));
        expect(covers(new Set(grants), needed)).toBe(expected);
        expect(missingScopes(new Set(grants), [needed])).toEqual(expected ? [] : [needed]);
      }),
      { numRuns: 2000 },
    );
  });

  it('never covers when the only granted scopes are character prefixes that end mid-part', () => {
    fc.assert(
      fc.property(scope, fc.integer({ min: 1, max: 20 }), (needed, cut) => {
        const prefix = needed.slice(0, Math.min(cut, needed.length));
        fc.pre(prefix !== needed && !prefix.endsWith(':') && needed[prefix.length] !== ':');
        expect(covers(new Set([prefix]), needed)).toBe(false);
      }),
    );
  });
});
