/**
 * Reading the zod schema as data: which fields an object allows, what type a field has, its
 * default, description and FieldMeta. The loader (did-you-mean, env expansion, redaction) and
 * docs/PROFILE.md both walk the schema through here, so they list what the schema says.
 *
 * Relies on zod 4's `_zod.def` (a documented, stable part of zod core: "def" is how zod's own
 * toJSONSchema walks schemas).
 */
import { z } from 'zod';
import type { FieldMeta } from './schema/fields.js';

export type Schema = z.core.$ZodType;
export type PathSegment = string | number;

/** The parts of zod 4 defs this module reads; every def has `type`, the rest depend on it. */
interface Def {
  type: string;
  innerType?: Schema;
  defaultValue?: unknown;
  shape?: Record<string, Schema>;
  element?: Schema;
  keyType?: Schema;
  valueType?: Schema;
  options?: readonly Schema[];
  in?: Schema;
  out?: Schema;
  entries?: Record<string, string | number>;
  values?: readonly unknown[];
  checks?: readonly { _zod: { def: CheckDef } }[];
}

interface CheckDef {
  check: string;
  value?: number;
  inclusive?: boolean;
  minimum?: number;
  maximum?: number;
  format?: string;
}

const defOf = (s: Schema): Def => s._zod.def as unknown as Def;

/** Wrappers that change presence or default but not the type of the value. */
const WRAPPERS = new Set([
  'optional',
  'default',
  'prefault',
  'nullable',
  'readonly',
  'catch',
  'nonoptional',
]);

export interface FieldInfo {
  /** The schema under optional/default/... wrappers. */
  inner: Schema;
  optional: boolean;
  hasDefault: boolean;
  defaultValue: unknown;
  /** Outermost `.describe()` text. */
  description: string | undefined;
  /** FieldMeta merged over all wrapper layers, outer layers winning. */
  meta: FieldMeta;
}

export function fieldInfo(schema: Schema): FieldInfo {
  const layers: Schema[] = [];
  let s = schema;
  let optional = false;
  let hasDefault = false;
  let defaultValue: unknown;
  for (;;) {
    layers.push(s);
    const def = defOf(s);
    if (!WRAPPERS.has(def.type) || def.innerType === undefined) break;
    if (def.type === 'optional') optional = true;
    if ((def.type === 'default' || def.type === 'prefault') && !hasDefault) {
      hasDefault = true;
      defaultValue = def.defaultValue;
    }
    s = def.innerType;
  }
  let description: string | undefined;
  let meta: FieldMeta = {};
  for (const layer of layers.reverse()) {
    const m = z.globalRegistry.get(layer);
    if (!m) continue;
    const { description: d, ...rest } = m;
    if (d !== undefined) description = d;
    meta = { ...meta, ...(rest as FieldMeta) };
  }
  return { inner: s, optional, hasDefault, defaultValue, description, meta };
}

export function kindOf(schema: Schema): string {
  return defOf(schema).type;
}

/** The allowed keys of an object schema (in declaration order), or null if not an object. */
export function objectShape(schema: Schema): Record<string, Schema> | null {
  const inner = fieldInfo(schema).inner;
  const def = defOf(inner);
  return def.type === 'object' && def.shape ? def.shape : null;
}

/** The schema of the child `seg` of a value of `schema`, or null if the schema has none. */
export function childSchema(schema: Schema, seg: PathSegment): Schema | null {
  const def = defOf(typeSchema(schema));
  switch (def.type) {
    case 'object':
      return def.shape && Object.hasOwn(def.shape, String(seg)) ? def.shape[String(seg)] : null;
    case 'array':
      return def.element ?? null;
    case 'record':
      return def.valueType ?? null;
    default:
      return null;
  }
}

export function schemaAt(root: Schema, path: readonly PathSegment[]): Schema | null {
  let s: Schema | null = root;
  for (const seg of path) {
    if (s === null) return null;
    s = childSchema(s, seg);
  }
  return s;
}

/** The schema that decides the value's type: wrappers removed, and for a pipe its input side. */
export function typeSchema(schema: Schema): Schema {
  let s = fieldInfo(schema).inner;
  while (defOf(s).type === 'pipe' && defOf(s).in) s = fieldInfo(defOf(s).in as Schema).inner;
  return s;
}

/** FieldMeta of a field, merged over its wrappers (`duration` carries its own on the pipe). */
export function metaOf(schema: Schema): FieldMeta {
  return fieldInfo(schema).meta;
}

/**
 * Every path (objects' keys; `<i>` for list items, `<key>` for map values) where `name` is a field.
 */
export function placesOfField(root: Schema, name: string): string[] {
  const out: string[] = [];
  const visit = (s: Schema, prefix: string[]): void => {
    const t = typeSchema(s);
    const def = defOf(t);
    if (def.type === 'object' && def.shape) {
      if (Object.hasOwn(def.shape, name)) out.push(prefix.join('.'));
      for (const [k, child] of Object.entries(def.shape)) visit(child, [...prefix, k]);
    } else if (def.type === 'array' && def.element) {
      visit(def.element, [...prefix, '<i>']);
    }
  };
  visit(root, []);
  return out.map((p) => (p === '' ? '(top level)' : p));
}

/** Whether the schema is an integer (`z.number().int()`), under its wrappers. */
export function isIntegerSchema(schema: Schema): boolean {
  const def = defOf(typeSchema(schema));
  return def.type === 'number' && numberBounds(def).int;
}

interface NumberBounds {
  int: boolean;
  min?: { value: number; inclusive: boolean };
  max?: { value: number; inclusive: boolean };
}

function numberBounds(def: Def): NumberBounds {
  const b: NumberBounds = { int: false };
  for (const c of def.checks ?? []) {
    const cd = c._zod.def;
    if (cd.check === 'number_format' && (cd.format === 'safeint' || cd.format === 'int32'))
      b.int = true;
    if (cd.check === 'greater_than' && cd.value !== undefined)
      b.min = { value: cd.value, inclusive: cd.inclusive ?? false };
    if (cd.check === 'less_than' && cd.value !== undefined)
      b.max = { value: cd.value, inclusive: cd.inclusive ?? false };
  }
  return b;
}

function stringFacts(def: Def): { minLength: number; format: string | null } {
  let minLength = 0;
  let format: string | null = null;
  for (const c of def.checks ?? []) {
    const cd = c._zod.def;
    if (cd.check === 'min_length' && cd.minimum !== undefined) minLength = cd.minimum;
    if (cd.check === 'string_format' && cd.format) format = cd.format;
  }
  return { minLength, format };
}

/**
 * A short human label of the type: `integer > 0`, `number 0–1`, `duration`, `"1.0.0" or "2.0.0"`,
 * `list of map`, `map of string → string`. Used in error messages and the docs.
 */
export function typeLabel(schema: Schema): string {
  if (metaOf(schema).kind === 'duration') return 'duration';
  const s = typeSchema(schema);
  const def = defOf(s);
  switch (def.type) {
    case 'string': {
      const f = stringFacts(def);
      if (f.format === 'url') return 'URL';
      return f.minLength > 0 ? 'non-empty string' : 'string';
    }
    case 'number': {
      const b = numberBounds(def);
      const base = b.int ? 'integer' : 'number';
      if (b.min && b.max) return `${base} ${b.min.value}–${b.max.value}`;
      if (b.min) {
        if (b.int && b.min.value === 0 && !b.min.inclusive) return 'integer ≥ 1';
        return `${base} ${b.min.inclusive ? '≥' : '>'} ${b.min.value}`;
      }
      if (b.max) return `${base} ${b.max.inclusive ? '≤' : '<'} ${b.max.value}`;
      return base;
    }
    case 'boolean':
      return 'boolean';
    case 'enum': {
      const values = Object.values(def.entries ?? {}).map((v) => JSON.stringify(v));
      return values.length > 2 ? `one of ${values.join(', ')}` : values.join(' or ');
    }
    case 'literal':
      return (def.values ?? []).map((v) => JSON.stringify(v)).join(' or ');
    case 'union':
      return (def.options ?? []).map(typeLabel).join(' or ');
    case 'object':
      return 'map';
    case 'array':
      return `list of ${def.element ? typeLabel(def.element) : 'any'}`;
    case 'record':
      return `map of string → ${def.valueType ? typeLabel(def.valueType) : 'any'}`;
    case 'unknown':
    case 'any':
      return 'any';
    default:
      return def.type;
  }
}
