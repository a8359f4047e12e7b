/**
 * How the bare `ws` receivers open a connection: a plain ws client (no compression, no UTF-8
 * check, as rtcap's own) on the v1 serializer, joined to `topic` without self-broadcast;
 * resolves at the join reply.
 */
import WebSocket from 'ws';

export function openBareMember(url: string, topic: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url + (url.includes('?') ? '&' : '?') + 'vsn=1.0.0', {
      perMessageDeflate: false,
      skipUTF8Validation: true,
    });
    ws.once('error', reject);
    ws.once('open', () => {
      ws.once('message', () => resolve(ws)); // the join reply
      const payload = { config: { broadcast: { self: false } } };
      ws.send(JSON.stringify({ topic, event: 'phx_join', payload, ref: '1', join_ref: '1' }));
    });
  });
}
