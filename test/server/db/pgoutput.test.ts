import { describe, expect, it } from 'vitest';
import { PgOutputDecoder, formatCommitTimestamp } from '../../../src/server/db/pgoutput.js';

/** Builds pgoutput protocol-v1 messages byte by byte (golden frames). */
class Msg {
  private parts: Buffer[] = [];
  tag(t: string) {
    this.parts.push(Buffer.from(t, 'latin1'));
    return this;
  }
  i8(n: number) {
    this.parts.push(Buffer.from([n]));
    return this;
  }
  i16(n: number) {
    const b = Buffer.alloc(2);
    b.writeInt16BE(n);
    this.parts.push(b);
    return this;
  }
  i32(n: number) {
    const b = Buffer.alloc(4);
    b.writeInt32BE(n);
    this.parts.push(b);
    return this;
  }
  i64(n: bigint) {
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(n);
    this.parts.push(b);
    return this;
  }
  str(s: string) {
    this.parts.push(Buffer.from(s + '\0', 'utf8'));
    return this;
  }
  text(s: string) {
    const bytes = Buffer.from(s, 'utf8');
    return this.tag('t').i32(bytes.length).raw(bytes);
  }
  raw(b: Buffer) {
    this.parts.push(b);
    return this;
  }
  done() {
    return Buffer.concat(this.parts);
  }
}

// 2026-08-01T12:00:00.123456Z in microseconds since 2000-01-01.
const COMMIT_US = BigInt(Date.UTC(2026, 7, 1, 12, 0, 0, 123) - 946_684_800_000) * 1000n + 456n;

function relation() {
  return new Msg()
    .tag('R')
    .i32(16384)
    .str('public')
    .str('messages')
    .tag('d')
    .i16(2)
    .i8(1)
    .str('id')
    .i32(20)
    .i32(-1)
    .i8(0)
    .str('body')
    .i32(25)
    .i32(-1)
    .done();
}

describe('pgoutput decoder', () => {
  it('decodes begin, relation, insert, update, delete', () => {
    const d = new PgOutputDecoder();
    expect(d.decode(new Msg().tag('B').i64(100n).i64(COMMIT_US).i32(7).done())).toBeNull();
    expect(d.decode(relation())).toBeNull();
    expect(d.relations.get(16384)).toEqual({
      relid: 16384,
      schema: 'public',
      table: 'messages',
      replicaIdentity: 'd',
      columns: [
        { name: 'id', typeOid: 20, isKey: true },
        { name: 'body', typeOid: 25, isKey: false },
      ],
    });
    const ins = d.decode(
      new Msg().tag('I').i32(16384).tag('N').i16(2).text('1').text('héllo').done(),
    )!;
    expect(ins).toMatchObject({
      type: 'INSERT',
      newTuple: ['1', 'héllo'],
      commitTimeUs: COMMIT_US,
    });
    expect(ins.relation.table).toBe('messages');

    const upd = d.decode(new Msg().tag('U').i32(16384).tag('N').i16(2).text('1').tag('u').done())!;
    expect(upd).toMatchObject({ type: 'UPDATE', newTuple: ['1', undefined], oldTuple: undefined });
    const updKey = d.decode(
      new Msg()
        .tag('U')
        .i32(16384)
        .tag('K')
        .i16(2)
        .text('1')
        .tag('n')
        .tag('N')
        .i16(2)
        .text('2')
        .tag('n')
        .done(),
    )!;
    expect(updKey).toMatchObject({
      type: 'UPDATE',
      oldKind: 'K',
      oldTuple: ['1', null],
      newTuple: ['2', null],
    });

    const del = d.decode(new Msg().tag('D').i32(16384).tag('K').i16(2).text('2').tag('n').done())!;
    expect(del).toMatchObject({ type: 'DELETE', oldKind: 'K', oldTuple: ['2', null] });
    expect(d.decode(new Msg().tag('C').i8(0).i64(1n).i64(2n).i64(COMMIT_US).done())).toBeNull();
  });

  it('formats the commit timestamp as §7.3 (UTC, milliseconds, Z)', () => {
    expect(formatCommitTimestamp(COMMIT_US)).toBe('2026-08-01T12:00:00.123Z');
  });

  it('refuses a change whose relation it has not seen', () => {
    const d = new PgOutputDecoder();
    expect(() => d.decode(new Msg().tag('I').i32(1).tag('N').i16(0).done())).toThrow(
      /before its Relation/,
    );
  });
});
