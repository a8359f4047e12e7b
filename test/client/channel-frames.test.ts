/**
 * channelFailure: which control frames end a membership (and delete its join), which are stale
 * or passed on unchanged, and the reasons reported, verbatim.
 */
import { describe, expect, it } from 'vitest';
import {
  channelFailure,
  IGNORE,
  PASS_ON,
  type JoinState,
} from '../../src/client/channel-frames.js';
import type { Frame } from '../../src/protocol/frame-types.js';

const TOPIC = 'realtime:room';

function joinsWith(joinRef: string): Map<string, JoinState> {
  return new Map([[TOPIC, { joinRef, joined: true }]]);
}

function frame(event: string, payload: unknown, joinRef: string | null, ref: string | null): Frame {
  return { joinRef, ref, topic: TOPIC, event, payload };
}

describe('channelFailure', () => {
  it('phx_error of the current join ends it with the reason', () => {
    const joins = joinsWith('3');
    const got = channelFailure(frame('phx_error', { reason: 'crashed' }, '3', '3'), joins);
    expect(got).toEqual({ class: 'server', reason: 'phx_error: crashed' });
    expect(joins.has(TOPIC)).toBe(false);
  });

  it('phx_close of the current join ends it; v1 has no join_ref, so the ref stands for it', () => {
    const joins = joinsWith('5');
    const got = channelFailure(frame('phx_close', {}, null, '5'), joins);
    expect(got).toEqual({ class: 'server', reason: 'phx_close: channel closed by server' });
    expect(joins.has(TOPIC)).toBe(false);
  });

  it('phx_close or phx_error of an older join, or of a topic not joined, is ignored', () => {
    const joins = joinsWith('7');
    expect(channelFailure(frame('phx_close', {}, '2', '2'), joins)).toBe(IGNORE);
    expect(channelFailure(frame('phx_error', {}, '2', '2'), joins)).toBe(IGNORE);
    expect(joins.get(TOPIC)).toEqual({ joinRef: '7', joined: true });
    expect(channelFailure(frame('phx_close', {}, '7', '7'), new Map())).toBe(IGNORE);
  });

  it('a system error is a failure with its message, the join kept; system ok is passed on', () => {
    const joins = joinsWith('1');
    const err = frame('system', { status: 'error', message: 'too many joins' }, null, null);
    expect(channelFailure(err, joins)).toEqual({
      class: 'server',
      reason: 'system error: too many joins',
    });
    const objectMessage = frame('system', { status: 'error', message: { code: 1 } }, null, null);
    expect(channelFailure(objectMessage, joins)).toEqual({
      class: 'server',
      reason: 'system error: {"code":1}',
    });
    expect(joins.has(TOPIC)).toBe(true);
    const ok = frame('system', { status: 'ok', extension: 'postgres_changes' }, null, null);
    expect(channelFailure(ok, joins)).toBe(PASS_ON);
  });

  it('any other event is passed on', () => {
    const joins = joinsWith('1');
    expect(channelFailure(frame('presence_diff', {}, '1', null), joins)).toBe(PASS_ON);
    expect(channelFailure(frame('broadcast', {}, '1', null), joins)).toBe(PASS_ON);
    expect(joins.has(TOPIC)).toBe(true);
  });
});
