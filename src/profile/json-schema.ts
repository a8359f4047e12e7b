/**
 * The profile's JSON Schema, generated from the zod schema (src/profile/schema.ts) so editors
 * and CI check profiles against exactly what `rtcap run` accepts. It describes the *input*
 * (what a YAML file may contain): durations are "20s" or a number of seconds, defaults are
 * optional. Checked in as profiles/rtcap.schema.json; `npm run schema` rewrites it and
 * test/profile/json-schema.test.ts fails while it is stale.
 */
import { z } from 'zod';
import { DURATION_STRING_PATTERN } from './duration.js';
import { profileSchema } from './schema.js';

/** rtcap's own `.meta()` keys: loader hints, not JSON Schema keywords. */
const RTCAP_META_KEYS = ['env', 'secret', 'unquoted', 'kind'] as const;

/** A `${VAR}` reference as src/profile/secrets.ts expands it. */
const ENV_REFERENCE = '\\$\\{[^}]*\\}';

/**
 * The JSON Schema of the input side of a zod schema of one of rtcap's files (profile,
 * campaign, workload), with rtcap's own loader conventions: `${VAR}` references where the
 * loader expands them, durations as seconds or "20s".
 */
export function inputJsonSchema(
  schema: z.ZodType,
  title: string,
  description: string,
): Record<string, unknown> {
  const generated = z.toJSONSchema(schema, {
    io: 'input',
    target: 'draft-2020-12',
    override: (ctx) => {
      const js = ctx.jsonSchema as Record<string, unknown>;
      // A `${VAR}` reference is expanded before validation, so the file may hold one where
      // the value has a pattern (target.url: ws://…).
      if (js.env === true && typeof js.pattern === 'string')
        js.pattern = `(?:${js.pattern})|${ENV_REFERENCE}`;
      // A duration is a number of seconds or a string such as "20s" or "1m30s".
      if (js.kind === 'duration' && Array.isArray(js.anyOf)) {
        for (const branch of js.anyOf as Record<string, unknown>[])
          if (branch.type === 'string') branch.pattern = DURATION_STRING_PATTERN;
      }
      // Strict validators (ajv strict mode, editors) refuse unknown keywords.
      for (const key of RTCAP_META_KEYS) delete js[key];
    },
  }) as Record<string, unknown>;
  const { $schema, ...rest } = generated;
  return { $schema, title, description, ...rest };
}

export function profileJsonSchema(): Record<string, unknown> {
  return inputJsonSchema(
    profileSchema,
    'rtcap profile',
    'A benchmark profile for rtcap; field reference: docs/PROFILE.md.',
  );
}

/** A JSON Schema as a file holds it: two-space JSON and a final newline. */
export function jsonSchemaText(schema: Record<string, unknown>): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}

/** The file text as checked in: two-space JSON and a final newline. */
export function profileJsonSchemaText(): string {
  return jsonSchemaText(profileJsonSchema());
}
