/**
 * What Supabase's `realtime.apply_rls` does to each decoded change (docs/PROTOCOL.md §7.1 step 4),
 * for one poll's batch:
 *
 * - subscribers of the table are taken per role; a table without a primary key gives every
 *   one of them `errors: ["Error 400: Bad Request, no primary key"]`, a role that cannot
 *   SELECT the primary key `["Error 401: Unauthorized"]` (these minimal records carry no
 *   column values, like Supabase's);
 * - filters and the action filter pick the subscribers (DELETE is matched on its old row);
 * - for an RLS-enabled table and a non-DELETE change, each subscriber's visibility is checked
 *   in the database under its role and claims (`realtime.rtcap_visible`); subscribers with
 *   identical role and claims share one check — Supabase runs one per subscription, which
 *   gives the same answer at a higher cost;
 * - columns the role cannot SELECT are removed from `columns`, `record` and `old_record`,
 *   and an RLS-enabled table's `old_record` keeps only the primary key (old values are
 *   not RLS-checked, even with REPLICA IDENTITY FULL);
 * - a change larger than `max_record_bytes` keeps only values of 64 bytes or less and gets
 *   `"Error 413: Payload Too Large"`.
 *
 * Every database question of a batch is asked in three queries at most (table facts, column
 * privileges, visibility), whatever the number of changes and subscribers.
 */
import { formatCommitTimestamp, type DecodedChange, type TupleValue } from './pgoutput.js';
import type { Subscription, SubscriptionRegistry } from './subscription-registry.js';
import { toJsonValue } from './values.js';

export interface ChangeData {
  schema: string;
  table: string;
  commit_timestamp: string;
  type: 'INSERT' | 'UPDATE' | 'DELETE';
  columns: { name: string; type: string }[];
  record?: Record<string, unknown>;
  old_record?: Record<string, unknown>;
  errors: string[] | null;
}

export interface ChangeEvent {
  data: ChangeData;
  subscriptionIds: string[];
}

export interface TableFacts {
  rlsEnabled: boolean;
  primaryKey: string[];
}

export interface VisibilityCheck {
  entity: number;
  pk: Record<string, string>;
  role: string;
  claims: string;
}

/** The database questions apply-rls asks; the poller answers them on its connection. */
export interface RlsCatalog {
  tableFacts(relids: number[]): Promise<Map<number, TableFacts>>;
  /** Columns each role may SELECT, keyed `role\0relid`. */
  selectableColumns(pairs: { role: string; relid: number }[]): Promise<Map<string, Set<string>>>;
  typeNames(oids: number[]): Promise<Map<number, string>>;
  /** Indexes of the checks whose row is visible. */
  visible(checks: VisibilityCheck[]): Promise<Set<number>>;
}

export const ERROR_NO_PK = 'Error 400: Bad Request, no primary key';
export const ERROR_UNAUTHORIZED = 'Error 401: Unauthorized';
export const ERROR_TOO_LARGE = 'Error 413: Payload Too Large';
const SMALL_VALUE_BYTES = 64;

function columnValues(
  change: DecodedChange,
  tuple: TupleValue[] | undefined,
  keysOnly: boolean,
): Map<string, string | null> {
  const m = new Map<string, string | null>();
  if (!tuple) return m;
  const cols = change.relation.columns;
  for (let i = 0; i < cols.length; i++) {
    if (keysOnly && !cols[i].isKey) continue;
    const v = tuple[i];
    if (v !== undefined) m.set(cols[i].name, v);
  }
  return m;
}

/** The row as filters see it: new row, or for DELETE the old one (docs/PROTOCOL.md §7.1 step 4). */
function filterValues(change: DecodedChange): Map<string, string | null> {
  if (change.type === 'DELETE')
    return columnValues(change, change.oldTuple, change.oldKind === 'K');
  const values = columnValues(change, change.newTuple, false);
  if (change.oldKind === 'O' && change.oldTuple) {
    // An unchanged TOASTed value is absent from the new tuple; REPLICA IDENTITY FULL has it.
    const cols = change.relation.columns;
    for (let i = 0; i < cols.length; i++) {
      if (change.newTuple?.[i] === undefined && change.oldTuple[i] !== undefined)
        values.set(cols[i].name, change.oldTuple[i]!);
    }
  }
  return values;
}

function oldRecordValues(change: DecodedChange): Map<string, string | null> | null {
  if (change.type === 'INSERT') return null;
  if (change.oldTuple) return columnValues(change, change.oldTuple, change.oldKind === 'K');
  // UPDATE without an old tuple (key unchanged, default identity): the key from the new row,
  // which is what wal2json's `identity` carries and docs/PROTOCOL.md §7.3's `old_record: {"id": 1}`
  // shows.
  return columnValues(change, change.newTuple, true);
}

interface Pending {
  change: DecodedChange;
  /** Every subscriber of the table, by role (error records go to all with a matching action). */
  byRole: Map<string, Set<Subscription>>;
  /** role → subscribers that passed action + filters. */
  matchedByRole: Map<string, Subscription[]>;
}

export interface ApplyOptions {
  maxRecordBytes: number;
}

/** Step 1: who could receive what, and which tables, role pairs and types the catalog is asked. */
function pendingChanges(changes: DecodedChange[], registry: SubscriptionRegistry) {
  const pending: Pending[] = [];
  const relids = new Set<number>();
  const pairs = new Map<string, { role: string; relid: number }>();
  const typeOids = new Set<number>();
  for (const change of changes) {
    const relid = change.relation.relid;
    const ent = registry.entity(relid);
    if (!ent) continue;
    const matchedByRole = new Map<string, Subscription[]>();
    for (const s of registry.matching(relid, change.type, filterValues(change))) {
      const list = matchedByRole.get(s.role);
      if (list) list.push(s);
      else matchedByRole.set(s.role, [s]);
    }
    pending.push({ change, byRole: ent.byRole, matchedByRole });
    relids.add(relid);
    for (const role of ent.byRole.keys()) pairs.set(`${role}\u0000${relid}`, { role, relid });
    for (const c of change.relation.columns) typeOids.add(c.typeOid);
  }
  return { pending, relids, pairs, typeOids };
}

/** What the catalog says of the pending changes' tables, columns and types (step 2). */
interface Catalogued {
  facts: Map<number, TableFacts>;
  /** `${role}\0${relid}` → the columns that role may select. */
  selectable: Map<string, Set<string>>;
  typeNames: Map<number, string>;
}

/** The RLS visibility checks of step 3 and, by `${pendingIndex}\0${claimsKey}`, their index. */
interface Checks {
  checks: VisibilityCheck[];
  checkOf: Map<string, number>;
}

/** Step 3: per-subscriber RLS checks, one per (change, role, claims). */
function visibilityChecks(pending: Pending[], cat: Catalogued): Checks {
  const checks: VisibilityCheck[] = [];
  const checkOf = new Map<string, number>();
  pending.forEach((p, pi) => {
    const f = cat.facts.get(p.change.relation.relid);
    if (!f || !f.rlsEnabled || p.change.type === 'DELETE' || f.primaryKey.length === 0) return;
    const pkValues = columnValues(p.change, p.change.newTuple, false);
    const pk: Record<string, string> = {};
    for (const col of f.primaryKey) pk[col] = pkValues.get(col) ?? '';
    for (const [role, subs] of p.matchedByRole) {
      const sel = cat.selectable.get(`${role}\u0000${p.change.relation.relid}`);
      if (!sel || !f.primaryKey.every((c) => sel.has(c))) continue;
      for (const s of subs) {
        const key = `${pi}\u0000${s.claimsKey}`;
        if (checkOf.has(key)) continue;
        checkOf.set(key, checks.length);
        checks.push({ entity: p.change.relation.relid, pk, role, claims: s.claimsJson });
      }
    }
  });
  return { checks, checkOf };
}

/** What step 4 reads for every change of a batch: the catalogue and which checks passed. */
interface Checked {
  cat: Catalogued;
  checks: Checks;
  visible: Set<number>;
  opts: ApplyOptions;
}

/** Step 4 for one change: one event per distinct payload, with the subscribers it goes to. */
function changeEvents(p: Pending, pi: number, checked: Checked): ChangeEvent[] {
  const { cat, checks, visible, opts } = checked;
  const { change } = p;
  const relid = change.relation.relid;
  const f = cat.facts.get(relid) ?? { rlsEnabled: false, primaryKey: [] };
  const byPayload = new Map<string, ChangeEvent>();
  const emit = (payloadKey: string, build: () => ChangeData, ids: string[]) => {
    if (ids.length === 0) return;
    const ev = byPayload.get(payloadKey);
    if (ev) ev.subscriptionIds.push(...ids);
    else byPayload.set(payloadKey, { data: build(), subscriptionIds: [...ids] });
  };
  const allIds = (role: string) =>
    [...(p.byRole.get(role) ?? [])]
      .filter((s) => s.action === '*' || s.action === change.type)
      .map((s) => s.id);
  for (const role of p.byRole.keys()) {
    if (f.primaryKey.length === 0) {
      emit(`!${ERROR_NO_PK}`, () => errorRecord(change, ERROR_NO_PK), allIds(role));
      continue;
    }
    const sel = cat.selectable.get(`${role}\u0000${relid}`) ?? new Set<string>();
    if (!f.primaryKey.every((c) => sel.has(c))) {
      emit(`!${ERROR_UNAUTHORIZED}`, () => errorRecord(change, ERROR_UNAUTHORIZED), allIds(role));
      continue;
    }
    const matched = p.matchedByRole.get(role) ?? [];
    const rlsChecked = f.rlsEnabled && change.type !== 'DELETE';
    const ids = matched
      .filter(
        (s) => !rlsChecked || visible.has(checks.checkOf.get(`${pi}\u0000${s.claimsKey}`) ?? -1),
      )
      .map((s) => s.id);
    const selKey = change.relation.columns
      .filter((c) => sel.has(c.name))
      .map((c) => c.name)
      .join('\u0000');
    emit(
      selKey,
      () =>
        fullRecord(change, sel, {
          typeNames: cat.typeNames,
          maxRecordBytes: opts.maxRecordBytes,
          facts: f,
        }),
      ids,
    );
  }
  return [...byPayload.values()];
}

export async function applyRls(
  changes: DecodedChange[],
  registry: SubscriptionRegistry,
  catalog: RlsCatalog,
  opts: ApplyOptions,
): Promise<ChangeEvent[]> {
  const { pending, relids, pairs, typeOids } = pendingChanges(changes, registry);
  if (pending.length === 0) return [];
  // 2. Table facts, column privileges, type names.
  const facts = await catalog.tableFacts([...relids]);
  const selectable = await catalog.selectableColumns([...pairs.values()]);
  const typeNames = await catalog.typeNames([...typeOids]);
  const cat: Catalogued = { facts, selectable, typeNames };
  const checks = visibilityChecks(pending, cat);
  const visible = checks.checks.length ? await catalog.visible(checks.checks) : new Set<number>();
  // 4. Payloads: one event per change and distinct payload.
  const checked: Checked = { cat, checks, visible, opts };
  return pending.flatMap((p, pi) => changeEvents(p, pi, checked));
}

function errorRecord(change: DecodedChange, error: string): ChangeData {
  const data: ChangeData = {
    schema: change.relation.schema,
    table: change.relation.table,
    commit_timestamp: formatCommitTimestamp(change.commitTimeUs),
    type: change.type,
    columns: [],
    errors: [error],
  };
  if (change.type !== 'DELETE') data.record = {};
  if (change.type !== 'INSERT') data.old_record = {};
  return data;
}

/**
 * The change's record in the columns `sel` may read, typed; a record over maxRecordBytes keeps only
 * its small values and says so in `errors`.
 */
function fullRecord(
  change: DecodedChange,
  sel: Set<string>,
  table: { typeNames: Map<number, string>; maxRecordBytes: number; facts: TableFacts },
): ChangeData {
  const { typeNames, maxRecordBytes, facts } = table;
  const tooLarge = change.sizeBytes > maxRecordBytes;
  const cols = change.relation.columns;
  const typeOf = new Map(cols.map((c) => [c.name, typeNames.get(c.typeOid) ?? 'text']));
  const shape = (values: Map<string, string | null>): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [name, v] of values) {
      if (!sel.has(name)) continue;
      if (tooLarge && v !== null && Buffer.byteLength(v) > SMALL_VALUE_BYTES) continue;
      out[name] = toJsonValue(typeOf.get(name)!, v);
    }
    return out;
  };
  const data: ChangeData = {
    schema: change.relation.schema,
    table: change.relation.table,
    commit_timestamp: formatCommitTimestamp(change.commitTimeUs),
    type: change.type,
    columns: cols
      .filter((c) => sel.has(c.name))
      .map((c) => ({ name: c.name, type: typeOf.get(c.name)! })),
    errors: tooLarge ? [ERROR_TOO_LARGE] : null,
  };
  if (change.type !== 'DELETE') data.record = shape(filterValues(change));
  const old = oldRecordValues(change);
  if (old) {
    // Old values are not RLS-checked, so an RLS table sends only the primary key of the old
    // row even with REPLICA IDENTITY FULL (Supabase docs: "only the primary key is sent").
    if (facts.rlsEnabled)
      for (const name of [...old.keys()]) if (!facts.primaryKey.includes(name)) old.delete(name);
    data.old_record = shape(old);
  }
  return data;
}
