/**
 * docs/PROFILE.md, generated from the zod schema so the reference lists what the schema says
 * (docs/ARCHITECTURE.md "Code rules": "one options schema"). `npm run docs:profile` rewrites it;
 * test/profile/docs.test.ts fails when it is stale.
 *
 *   node dist/profile/docs.js              print to stdout
 *   node dist/profile/docs.js FILE         write FILE (only once rendering succeeded)
 */
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { formatDurationMs } from './duration.js';
import {
  childSchema,
  fieldInfo,
  kindOf,
  objectShape,
  typeLabel,
  typeSchema,
  type Schema,
} from './introspect.js';
import { profileSchema } from './schema.js';

interface Section {
  /** Dotted path of the object, `<i>` for list items; '' for the top level. */
  path: string;
  schema: Schema;
}

const anchor = (path: string): string =>
  path === '' ? 'top-level' : path.replace(/[^A-Za-z0-9_]+/g, '-').replace(/-+$/, '');
const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (s: string): string => `\`${s}\``;

/** The object schema a field leads to: itself, or the item of a list of objects. */
function nestedObject(schema: Schema): { schema: Schema; suffix: string } | null {
  const t = typeSchema(schema);
  if (kindOf(t) === 'object') return { schema: t, suffix: '' };
  if (kindOf(t) === 'array') {
    const item = childSchema(t, 0);
    if (item !== null && kindOf(typeSchema(item)) === 'object')
      return { schema: typeSchema(item), suffix: '.<i>' };
  }
  return null;
}

function sections(): Section[] {
  const out: Section[] = [];
  const visit = (path: string, schema: Schema): void => {
    out.push({ path, schema });
    for (const [key, child] of Object.entries(objectShape(schema) ?? {})) {
      const nested = nestedObject(child);
      if (nested) visit(`${path === '' ? '' : `${path}.`}${key}${nested.suffix}`, nested.schema);
    }
  };
  visit('', profileSchema);
  return out;
}

function defaultText(schema: Schema): string {
  const info = fieldInfo(schema);
  if (!info.hasDefault) return info.optional ? 'optional' : '**required**';
  if (nestedObject(schema)?.suffix === '') return 'its fields’ defaults';
  const v = info.defaultValue;
  if (info.meta.kind === 'duration' && typeof v === 'number') return code(formatDurationMs(v));
  return code(JSON.stringify(v));
}

function typeText(path: string, schema: Schema): string {
  const nested = nestedObject(schema);
  if (nested) {
    const link = `[${code(path + nested.suffix)}](#${anchor(path + nested.suffix)})`;
    return nested.suffix === '' ? `map, see ${link}` : `list of maps, see ${link}`;
  }
  return cell(typeLabel(schema));
}

function fieldsWhere(pred: (s: Schema) => boolean): string[] {
  const out: string[] = [];
  for (const section of sections()) {
    for (const [key, child] of Object.entries(objectShape(section.schema) ?? {})) {
      if (pred(child)) out.push(section.path === '' ? key : `${section.path}.${key}`);
    }
  }
  return out;
}

/** How to write and check a profile: docs/PROFILE.md's hand-written part, before the tables. */
const GUIDE: string[] = [
  '## A profile in short',
  '',
  'The core of a profile (every field below is in the tables that follow):',
  '',
  '```yaml',
  'name: my-benchmark',
  'scenario: broadcast-public',
  'target:',
  '  url: ws://127.0.0.1:4000/socket/websocket   # omit to start the built-in server',
  '  vsn: "1.0.0"                                # or "2.0.0" (JSON arrays, binary broadcasts)',
  '  dialect: supabase                           # or phoenix',
  '  topic: realtime:bench                       # full topic as sent on the wire',
  '  join_payload: {}                            # phoenix dialect: the phx_join payload',
  '  push_event: broadcast                       # phoenix dialect',
  '  receive_event: broadcast                    # phoenix dialect',
  '  instance: { vcpus: 2, memory_mb: 4096 }     # basis of server CPU % and memory %',
  'load:',
  '  join_rate: 100          # connections per second (open model: late joins are counted, never skipped)',
  '  self: false             # does the sender receive its own messages',
  '  payload_bytes: 64',
  '  steps:',
  '    - { connections: 1000, send_rate: 10, duration: 20s }',
  'slo: { p95_ms: 200 }',
  '```',
  '',
  'What each `scenario` measures: docs/SCENARIOS.md. A wrong field is reported with its path,',
  'line and column, and a suggestion:',
  '',
  '```',
  'profiles/x.yaml:9:3: load.join_rte: unknown field (did you mean "join_rate"?)',
  'profiles/x.yaml:13:17: load.steps.0.duration: not a duration: "fast" (use e.g. 20s, 2m, 500ms or a number of seconds)',
  '```',
  '',
  '## Checking a profile: `rtcap validate`',
  '',
  '`rtcap validate FILE…` checks profiles exactly as `run` loads them (overrides with `--set`,',
  "`${ENV_VAR}` references expanded). It checks campaigns with every entry's profile as `campaign`",
  'loads them, and workloads as `plan` reads them (the kind is told from the fields, or `--kind`).',
  'It runs nothing. It prints `FILE: ok` per good file on stdout and the problems on stderr, and',
  'exits 2 if there are any. A `${VAR}` not set where validate runs is named, not refused',
  '(`ok — not set here, so their fields were not checked: ${RTCAP_URL} (target.url)`): CI and',
  'pods set their variables elsewhere. Host facts are warnings (above).',
  '',
  '## Editors: the JSON Schema',
  '',
  "Editors (the YAML language server: VS Code's YAML extension, Neovim, …) complete and check",
  'profiles from a JSON Schema generated from the same zod schema. `rtcap schema` prints it',
  '(`--kind campaign` or `workload` for those files). It is checked in as',
  '`profiles/rtcap.schema.json`, and every shipped profile starts with',
  '',
  '```yaml',
  '# yaml-language-server: $schema=./rtcap.schema.json',
  '```',
  '',
  'The path is relative to the profile; from another folder, point it at your copy of the file.',
  '',
];

export function renderProfileDocs(): string {
  const lines: string[] = [
    '# Profile reference',
    '',
    '<!-- Generated from src/profile/schema.ts by `npm run build && npm run docs:profile`. Do not edit by hand. -->',
    '',
    'A profile is a YAML file describing one capacity run: `rtcap run PROFILE [--set path=value ...]`.',
    'Every map is strict: an unknown or mistyped field is an error naming the field, its line and',
    'column, and the closest known field.',
    '',
    '- **Durations** are written `500ms`, `20s`, `2m`, `1h`, combined as `1m30s`, or as a plain number',
    '  of seconds; the loaded profile holds milliseconds.',
    '- **`--set path=value`** overrides any field by its dotted path before validation, e.g.',
    '  `--set load.steps.0.connections=200`, `--set target.url=ws://10.0.0.5:4000/socket/websocket`,',
    '  `--set slo={p95_ms: 150}`. The value is read as YAML (`200` a number, `true` a boolean,',
    '  `{a: 1}` a map, `"200"` a string). Missing maps on the path are created; a list index may be',
    '  an existing item or the next one.',
    `- **\`\${ENV_VAR}\`** is expanded in ${fieldsWhere((s) => fieldInfo(s).meta.env === true)
      .map(code)
      .join(', ')}. An unset variable is an error; write \`$\${\` for a literal \`\${\`.`,
    `- **Secrets** are written as \`"***"\` in result.json and never printed: ${fieldsWhere(
      (s) => fieldInfo(s).meta.secret !== undefined,
    )
      .map((p) => {
        const secret = fieldInfo(fieldAt(p)).meta.secret;
        return secret === 'url'
          ? `${code(p)} (password and apikey/token parameters)`
          : secret === 'keys'
            ? `${code(p)} (credential-like keys)`
            : secret === 'values'
              ? `${code(p)} (every value but Host's)`
              : code(p);
      })
      .join(', ')}.`,
    '  A value put in by `${ENV_VAR}` is hidden as its field is: a header value or a key wholly,',
    "  a URL's password and apikey where they stand (the URL itself names the target and stays).",
    "  A server's HTTP head quoted in an error (a refused upgrade that",
    '  echoes the request) keeps its lines but not the values of Cookie, Set-Cookie, Authorization',
    '  and any header whose name says token, key, secret, auth, session or password.',
    '- **Host facts are warnings, not errors.** `rtcap validate` checks the file. What `rtcap run`',
    '  would refuse on the machine validate runs on — `generator.link.loss` where there is no netem',
    '  (not root, not Linux, no netem qdisc), more connections than the machine can hold (memory,',
    '  processes, source ports, open files), a load no run can offer (`load.payload_bytes` over the',
    '  5,000,000-byte frame limit, sends or joins over the 1,000,000/s the schedule can pace, more',
    "  deliveries/s than the generator's cores can read at 11.26 µs each: `src/load/load-bounds.ts`)",
    '  — is printed after `FILE: ok` as',
    '  `FILE: warning: rtcap run refuses it on this host: …`, naming the host fact, and validate',
    '  still exits 0: the same file is good on a machine that has netem or the room, and CI often',
    '  validates where the run does not happen. `rtcap run` refuses it on such a host, exit 2.',
    '',
    ...GUIDE,
  ];
  for (const section of sections()) {
    const title = section.path === '' ? 'Top level' : code(section.path);
    lines.push(`<a id="${anchor(section.path)}"></a>`, '', `## ${title}`, '');
    const listPath = section.path.endsWith('.<i>') ? section.path.slice(0, -'.<i>'.length) : null;
    const own =
      section.path === '' ? undefined : fieldInfo(fieldAt(listPath ?? section.path)).description;
    if (listPath !== null)
      lines.push(`Each item of ${code(listPath)}${own ? ` (${own})` : ''}:`, '');
    else if (own) lines.push(`${own[0].toUpperCase()}${own.slice(1)}.`, '');
    lines.push('| Field | Type | Default | Description |', '|---|---|---|---|');
    for (const [key, child] of Object.entries(objectShape(section.schema) ?? {})) {
      const path = section.path === '' ? key : `${section.path}.${key}`;
      lines.push(
        `| ${code(key)} | ${typeText(path, child)} | ${defaultText(child)} | ${cell(fieldInfo(child).description ?? '')} |`,
      );
    }
    lines.push('');
  }
  return lines.join('\n');
}

/** The field schema at a docs path (`load.steps.<i>.duration`). */
function fieldAt(path: string): Schema {
  let s: Schema | null = profileSchema;
  for (const seg of path.split('.')) {
    s = s === null ? null : childSchema(s, seg === '<i>' ? 0 : seg);
  }
  if (s === null) throw new Error(`no field ${path} in the profile schema`);
  return s;
}

const invokedAsScript =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (invokedAsScript) {
  const text = renderProfileDocs();
  const out = process.argv[2];
  if (out) writeFileSync(out, text);
  else process.stdout.write(text);
}
