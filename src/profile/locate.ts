/** Maps a field path to the line and column of its node in the YAML source. */
import { isAlias, isMap, isScalar, isSeq, type Document, type LineCounter } from 'yaml';
import type { PathSegment } from './introspect.js';

export interface Position {
  line: number;
  col: number;
}

/**
 * `value`: the node at `path` (its key when the value is empty, as in `load:` with nothing
 * after it); `key`: the key of the last segment, for unknown fields. When the path does not
 * exist in the document (a missing field) the deepest existing ancestor is returned, and null
 * when that ancestor is the document itself: a missing top-level field has no line to point at.
 */
export function locate(
  doc: Document,
  lineCounter: LineCounter,
  path: readonly PathSegment[],
  at: 'key' | 'value',
): Position | null {
  const pos = (offset: number): Position => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, col };
  };
  const start = (n: unknown): number | null => {
    const range = (n as { range?: [number, number, number] } | null)?.range;
    return range ? range[0] : null;
  };
  let node: unknown = doc.contents;
  const rootStart = start(node);
  if (path.length === 0) return rootStart === null ? null : pos(rootStart);
  let found: Position | null = null;
  for (let i = 0; i < path.length; i++) {
    const seg = String(path[i]);
    const last = i === path.length - 1;
    if (isAlias(node)) node = node.resolve(doc);
    if (isMap(node)) {
      const pair = node.items.find(
        (p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === seg,
      );
      if (pair === undefined) return found;
      const keyStart = start(pair.key);
      if (last && at === 'key') return keyStart === null ? found : pos(keyStart);
      const value = pair.value;
      const valueStart = start(value);
      const emptyValue =
        value === null || (isScalar(value) && value.value === null && value.source === '');
      const offset = emptyValue || valueStart === null ? keyStart : valueStart;
      // Nodes made by --set have no range: keep the last position that came from the file.
      if (offset !== null) found = pos(offset);
      node = value;
    } else if (isSeq(node)) {
      const item = node.items[Number(seg)];
      if (item === undefined) return found;
      const itemStart = start(item);
      if (itemStart !== null) found = pos(itemStart);
      node = item;
    } else {
      return found;
    }
  }
  return found;
}
