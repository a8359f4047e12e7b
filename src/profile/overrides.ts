/**
 * `--set path=value` overrides, applied to the YAML document before validation so a value set
 * on the command line is checked by exactly the same schema as one written in the file.
 */
import {
  isAlias,
  isMap,
  isScalar,
  isSeq,
  Pair,
  parseDocument,
  Scalar,
  YAMLMap,
  YAMLSeq,
  type Document,
  type Node,
} from 'yaml';

export interface SetOverride {
  /** The argument as given, e.g. `load.steps.0.connections=200`. */
  arg: string;
  path: string[];
  value: unknown;
  /**
   * The shallowest path this override created or replaced. A problem at or under it comes from
   * the override, so it is reported against the `--set` argument rather than a line of the file.
   */
  root: string[];
}

export interface SetProblem {
  arg: string;
  /** The argument's path; null when the argument itself is malformed. */
  argPath: string[] | null;
  /** Where in the document the override failed (empty when the argument itself is malformed). */
  path: string[];
  value: unknown;
  message: string;
}

type Parsed = { path: string[]; value: unknown } | { error: string };

/** `a.b.0.c=value` → path and YAML-parsed value (`200` → 200, `true` → true, `{a: 1}` → map). */
export function parseSetArg(arg: string): Parsed {
  const eq = arg.indexOf('=');
  if (eq < 0) return { error: 'expected path=value, e.g. load.steps.0.connections=200' };
  const pathText = arg.slice(0, eq).trim();
  if (pathText === '') return { error: 'the path before "=" is empty' };
  const path = pathText.split('.');
  if (path.some((seg) => seg === '')) return { error: `"${pathText}" has an empty segment` };
  const valueText = arg.slice(eq + 1);
  const doc = parseDocument(valueText, { prettyErrors: false });
  if (doc.errors.length > 0) return { error: `value is not valid YAML: ${doc.errors[0].message}` };
  const c = doc.contents;
  // A block map or list on one command-line argument ("a: b", "- x") is far likelier meant as
  // text than as structure; structure is written in flow style ({a: 1}, [1, 2]).
  if ((isMap(c) || isSeq(c)) && !c.flow) return { path, value: valueText };
  return { path, value: doc.toJS() };
}

const keyText = (key: unknown): string => (isScalar(key) ? String(key.value) : String(key));

const isEmpty = (n: unknown): boolean =>
  n === null || n === undefined || (isScalar(n) && n.value === null);

const isIndex = (seg: string): boolean => /^(0|[1-9]\d*)$/.test(seg);

function describeNode(n: unknown, quote: boolean): string {
  if (isScalar(n))
    return n.value === null
      ? 'empty'
      : quote
        ? `${typeof n.value} ${JSON.stringify(n.value)}`
        : `a ${typeof n.value}`;
  if (isSeq(n)) return 'a list';
  if (isMap(n)) return 'a map';
  return 'not a map';
}

/** One segment walked: the node it leads to and whether the walk made it; or why it cannot. */
type Walked = { node: unknown; created: boolean } | { error: string };

/** Into a map: the key's value, or a new node where the key is missing, empty or the last. */
function intoMap(map: YAMLMap, seg: string, last: boolean, newNode: () => Node): Walked {
  const pair = map.items.find((p) => keyText(p.key) === seg);
  if (pair === undefined) {
    const child = newNode();
    map.items.push(new Pair(new Scalar(seg), child));
    return { node: child, created: true };
  }
  if (last || isEmpty(pair.value)) {
    pair.value = newNode();
    return { node: pair.value, created: true };
  }
  return { node: pair.value, created: false };
}

/** Into a list: an existing item, or a new one at an empty item, the last segment or the end. */
function intoSeq(seq: YAMLSeq, seg: string, last: boolean, newNode: () => Node): Walked {
  const length = seq.items.length;
  if (!isIndex(seg)) return { error: `is a list; use an index 0..${length} instead of "${seg}"` };
  const index = Number(seg);
  if (index > length) {
    return {
      error: `index ${index} is out of range: the list has ${length} item${length === 1 ? '' : 's'} (use 0..${length - 1}, or ${length} to append)`,
    };
  }
  if (index === length) {
    const child = newNode();
    seq.items.push(child);
    return { node: child, created: true };
  }
  if (last || isEmpty(seq.items[index])) {
    seq.items[index] = newNode();
    return { node: seq.items[index], created: true };
  }
  return { node: seq.items[index], created: false };
}

/**
 * Sets `path` to `value` in `doc`, creating missing maps on the way (and a list when the next
 * segment is an index). A list index may be an existing item or the next one (append), nothing
 * further, so a typo in an index cannot silently create a sparse list.
 */
function applyOne(
  doc: Document,
  path: string[],
  value: unknown,
  unquoted: (path: string[]) => boolean,
): { root: string[] } | { error: string; at: string[] } {
  if (isEmpty(doc.contents)) doc.contents = new YAMLMap();
  let node: unknown = doc.contents;
  let root: string[] | null = null;
  const container = (nextSeg: string): YAMLMap | YAMLSeq =>
    isIndex(nextSeg) ? new YAMLSeq() : new YAMLMap();

  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    const parentPath = path.slice(0, i);
    const last = i === path.length - 1;
    const newNode = (): Node => (last ? (doc.createNode(value) as Node) : container(path[i + 1]));

    if (isAlias(node)) {
      return {
        error: `is an alias (*${node.source}); set the anchored value instead`,
        at: parentPath,
      };
    }
    let walked: Walked;
    if (isMap(node)) walked = intoMap(node, seg, last, newNode);
    else if (isSeq(node)) walked = intoSeq(node, seg, last, newNode);
    else
      return {
        error: `is ${describeNode(node, !unquoted(parentPath))}, not a map; cannot set "${seg}" inside it`,
        at: parentPath,
      };
    if ('error' in walked) return { error: walked.error, at: parentPath };
    if (walked.created) root ??= path.slice(0, i + 1);
    node = walked.node;
  }
  return { root: root ?? path };
}

/**
 * Applies the overrides in order (a later one wins); returns what each touched, or the problems.
 * A value already in the document is quoted in a problem unless `unquoted` says its path is
 * where a credential goes.
 */
export function applySets(
  doc: Document,
  args: readonly string[],
  unquoted: (path: string[]) => boolean = () => false,
): { applied: SetOverride[]; problems: SetProblem[] } {
  const applied: SetOverride[] = [];
  const problems: SetProblem[] = [];
  for (const arg of args) {
    const parsed = parseSetArg(arg);
    if ('error' in parsed) {
      problems.push({ arg, argPath: null, path: [], value: undefined, message: parsed.error });
      continue;
    }
    const result = applyOne(doc, parsed.path, parsed.value, unquoted);
    if ('error' in result)
      problems.push({
        arg,
        argPath: parsed.path,
        path: result.at,
        value: parsed.value,
        message: result.error,
      });
    else applied.push({ arg, path: parsed.path, value: parsed.value, root: result.root });
  }
  return { applied, problems };
}
