import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderProfileDocs } from '../../src/profile/docs.js';
import {
  fieldInfo,
  objectShape,
  typeSchema,
  kindOf,
  childSchema,
  type Schema,
} from '../../src/profile/introspect.js';
import { profileSchema } from '../../src/profile/schema.js';

const DOCS = fileURLToPath(new URL('../../docs/PROFILE.md', import.meta.url));

/** Every field of the schema as [dotted path, schema], list items as `<i>`. */
function allFields(): [string, Schema][] {
  const out: [string, Schema][] = [];
  const visit = (prefix: string, schema: Schema): void => {
    for (const [key, child] of Object.entries(objectShape(schema) ?? {})) {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      out.push([path, child]);
      const t = typeSchema(child);
      if (kindOf(t) === 'object') visit(path, t);
      if (kindOf(t) === 'array') {
        const item = childSchema(t, 0);
        if (item && kindOf(typeSchema(item)) === 'object') visit(`${path}.<i>`, typeSchema(item));
      }
    }
  };
  visit('', profileSchema);
  return out;
}

describe('docs/PROFILE.md', () => {
  it('is up to date with the schema (regenerate: npm run build && npm run docs:profile)', () => {
    expect(readFileSync(DOCS, 'utf8')).toBe(renderProfileDocs());
  });

  it('has a row for every field of the schema, under its object', () => {
    const docs = renderProfileDocs();
    for (const [path] of allFields()) {
      const dot = path.lastIndexOf('.');
      const section = dot < 0 ? '## Top level' : `## \`${path.slice(0, dot)}\``;
      const key = path.slice(dot + 1);
      const body = docs.slice(docs.indexOf(`${section}\n`));
      expect(docs.indexOf(`${section}\n`), `section for ${path}`).toBeGreaterThan(0);
      expect(body.split('\n## ')[0], path).toContain(`| \`${key}\` |`);
    }
  });

  it('lists defaults as the schema has them, durations written as durations', () => {
    const docs = renderProfileDocs();
    expect(docs).toContain('| `join_timeout` | duration | `10s` |');
    expect(docs).toContain('| `token_ttl` | duration | `1h` |');
    expect(docs).toContain('| `vsn` | "1.0.0" or "2.0.0" | `"1.0.0"` |');
    expect(docs).toContain('| `connections` | integer ≥ 0 | **required** |');
    expect(docs).toContain('| `workers` | integer ≥ 1 or "auto" | `"auto"` |');
  });

  it('names the fields that expand ${ENV_VAR} and those that are secret, from the schema', () => {
    const docs = renderProfileDocs();
    const envLine = docs.split('\n').find((l) => l.startsWith('- **`${ENV_VAR}`**')) ?? '';
    for (const f of [
      'target.url',
      'target.headers',
      'target.metrics_token',
      'target.auth.apikey',
      'target.auth.jwt_secret',
    ]) {
      expect(envLine).toContain(`\`${f}\``);
    }
    const secretLine = docs.split('\n').find((l) => l.startsWith('- **Secrets**')) ?? '';
    for (const f of [
      'target.auth.apikey',
      'target.auth.jwt_secret',
      'target.metrics_token',
      'target.url',
      'target.headers',
    ]) {
      expect(secretLine).toContain(`\`${f}\``);
    }
  });
});

describe('the schema', () => {
  it('describes every field (the docs are only as good as these texts)', () => {
    const undescribed = allFields()
      .filter(([, s]) => !fieldInfo(s).description)
      .map(([p]) => p);
    expect(undescribed).toEqual([]);
  });
});
