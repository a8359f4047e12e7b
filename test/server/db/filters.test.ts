import { describe, expect, it } from 'vitest';
import { compileFilter, visibleThroughFilters } from '../../../src/server/db/filters.js';
import { inspectStrings, parseFilter } from '../../../src/server/db/filter-parse.js';
import {
  normalize,
  parseArrayLiteral,
  timestampMicros,
} from '../../../src/server/db/filter-values.js';

describe('parseFilter (docs/PROTOCOL.md §7.2)', () => {
  it('parses the classic operators', () => {
    expect(parseFilter('room_id=eq.7')).toEqual({
      ok: true,
      filters: [{ column: 'room_id', op: 'eq', value: '7', negate: false }],
    });
    for (const op of ['neq', 'lt', 'lte', 'gt', 'gte']) {
      expect(parseFilter(`n=${op}.1.5`)).toEqual({
        ok: true,
        filters: [{ column: 'n', op, value: '1.5', negate: false }],
      });
    }
    expect(parseFilter('id=in.(1,2,3)')).toEqual({
      ok: true,
      filters: [{ column: 'id', op: 'in', value: '{1,2,3}', negate: false }],
    });
  });

  it('treats absent and blank filters as none, and supports not. and comma-AND', () => {
    expect(parseFilter(undefined)).toEqual({ ok: true, filters: [] });
    expect(parseFilter('   ')).toEqual({ ok: true, filters: [] });
    expect(parseFilter('id=not.eq.5')).toEqual({
      ok: true,
      filters: [{ column: 'id', op: 'eq', value: '5', negate: true }],
    });
    expect(parseFilter('id=gt.0,id=in.(4,5)')).toEqual({
      ok: true,
      filters: [
        { column: 'id', op: 'gt', value: '0', negate: false },
        { column: 'id', op: 'in', value: '{4,5}', negate: false },
      ],
    });
    expect(parseFilter('body=eq."a,b"')).toEqual({
      ok: true,
      filters: [{ column: 'body', op: 'eq', value: 'a,b', negate: false }],
    });
  });

  it('gives Supabase’s error texts', () => {
    expect(parseFilter('subject=foo.hey')).toEqual({
      ok: false,
      error: 'Error parsing `filter` params: ["foo", "hey"]',
    });
    expect(parseFilter('undefined')).toEqual({
      ok: false,
      error: 'Error parsing `filter` params: ["undefined"]',
    });
    expect(parseFilter('id=eq')).toEqual({
      ok: false,
      error: 'Error parsing `filter` params: ["eq"]',
    });
    expect(parseFilter('id=in.1,2')).toEqual({
      ok: false,
      error: 'Error parsing `filter` params: `in` filter value must be wrapped by parentheses',
    });
    expect(parseFilter('id=eq.1,,id=eq.2')).toEqual({
      ok: false,
      error:
        'Error parsing `filter` params: filter must not contain empty segments (check for extra commas)',
    });
    expect(parseFilter('body=regex.abc')).toEqual({
      ok: false,
      error: 'Error parsing `filter` params: ["regex", "abc"]',
    });
    expect(inspectStrings(['a"b'])).toBe('["a\\"b"]');
  });
});

describe('filter evaluation', () => {
  const values = (o: Record<string, string | null>) => new Map(Object.entries(o));
  const f = (filter: string, typname: string) => {
    const r = parseFilter(filter);
    if (!r.ok) throw new Error(r.error);
    return r.filters.map((x) => compileFilter(x, typname));
  };

  it('compares by column type, not as text', () => {
    expect(visibleThroughFilters(f('n=gt.9', 'int4'), values({ n: '10' }))).toBe(true);
    expect(visibleThroughFilters(f('n=gt.9', 'text'), values({ n: '10' }))).toBe(false);
    expect(visibleThroughFilters(f('n=eq.007', 'int8'), values({ n: '7' }))).toBe(true);
    expect(visibleThroughFilters(f('x=lte.1.5', 'float8'), values({ x: '1.5' }))).toBe(true);
    expect(visibleThroughFilters(f('b=eq.true', 'bool'), values({ b: 't' }))).toBe(true);
    expect(
      visibleThroughFilters(
        f('u=eq.ABCDEF00-0000-0000-0000-000000000000', 'uuid'),
        values({ u: 'abcdef00-0000-0000-0000-000000000000' }),
      ),
    ).toBe(true);
    expect(
      visibleThroughFilters(
        f('t=gte.2026-08-01T12:00:00Z', 'timestamptz'),
        values({ t: '2026-08-01 14:00:00.5+02' }),
      ),
    ).toBe(true);
    expect(
      visibleThroughFilters(
        f('t=gt.2026-08-01T12:00:00Z', 'timestamptz'),
        values({ t: '2026-08-01 14:00:00+02' }),
      ),
    ).toBe(false);
  });

  it('in, neq, not. and AND', () => {
    expect(visibleThroughFilters(f('n=in.(1,2,3)', 'int4'), values({ n: '2' }))).toBe(true);
    expect(visibleThroughFilters(f('n=in.(1,2,3)', 'int4'), values({ n: '4' }))).toBe(false);
    expect(visibleThroughFilters(f('s=in.(a,"b c")', 'text'), values({ s: 'b c' }))).toBe(true);
    expect(visibleThroughFilters(f('n=neq.1', 'int4'), values({ n: '2' }))).toBe(true);
    expect(visibleThroughFilters(f('n=not.eq.1', 'int4'), values({ n: '1' }))).toBe(false);
    expect(visibleThroughFilters(f('n=gt.0,n=lt.10', 'int4'), values({ n: '5' }))).toBe(true);
    expect(visibleThroughFilters(f('n=gt.0,n=lt.10', 'int4'), values({ n: '15' }))).toBe(false);
  });

  it('the 2026 operators: like, ilike, is, isdistinct, match, imatch', () => {
    expect(parseFilter('body=like.ab%')).toEqual({
      ok: true,
      filters: [{ column: 'body', op: 'like', value: 'ab%', negate: false }],
    });
    expect(visibleThroughFilters(f('s=like.ab%', 'text'), values({ s: 'abc' }))).toBe(true);
    expect(visibleThroughFilters(f('s=like.a_c', 'text'), values({ s: 'abc' }))).toBe(true);
    expect(visibleThroughFilters(f('s=like.a_c', 'text'), values({ s: 'ABC' }))).toBe(false);
    expect(visibleThroughFilters(f('s=ilike.a_c', 'text'), values({ s: 'ABC' }))).toBe(true);
    expect(visibleThroughFilters(f('s=like.a.c%', 'text'), values({ s: 'abc' }))).toBe(false); // '.' is literal
    expect(visibleThroughFilters(f('s=like.100\\%', 'text'), values({ s: '100%' }))).toBe(true);
    expect(visibleThroughFilters(f('s=match.^a[0-9]+$', 'text'), values({ s: 'a42' }))).toBe(true);
    expect(visibleThroughFilters(f('s=imatch.^A', 'text'), values({ s: 'abc' }))).toBe(true);
    expect(visibleThroughFilters(f('s=is.null', 'text'), values({ s: null }))).toBe(true);
    expect(visibleThroughFilters(f('s=not.is.null', 'text'), values({ s: null }))).toBe(false);
    expect(visibleThroughFilters(f('s=not.is.null', 'text'), values({ s: 'x' }))).toBe(true);
    expect(visibleThroughFilters(f('b=is.true', 'bool'), values({ b: 't' }))).toBe(true);
    expect(visibleThroughFilters(f('b=is.false', 'bool'), values({ b: null }))).toBe(false);
    expect(visibleThroughFilters(f('b=is.unknown', 'bool'), values({ b: null }))).toBe(true);
    expect(visibleThroughFilters(f('n=isdistinct.5', 'int4'), values({ n: null }))).toBe(true);
    expect(visibleThroughFilters(f('n=isdistinct.5', 'int4'), values({ n: '5' }))).toBe(false);
    expect(visibleThroughFilters(f('n=isdistinct.5', 'int4'), values({ n: '6' }))).toBe(true);
  });

  it('never matches a null or absent value', () => {
    expect(visibleThroughFilters(f('n=neq.1', 'int4'), values({ n: null }))).toBe(false);
    expect(visibleThroughFilters(f('n=not.eq.1', 'int4'), values({}))).toBe(false);
  });

  it('helpers', () => {
    expect(parseArrayLiteral('{1,"a,b",NULL,"NULL"}')).toEqual(['1', 'a,b', null, 'NULL']);
    expect(timestampMicros('2000-01-01 00:00:00.000001+00')).toBe(946684800000001n);
    expect(normalize('int4', '+5')).toBe(5n);
  });
});
