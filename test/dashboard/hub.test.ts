/**
 * The event stream over real sockets: a page gets the snapshot, then every event; a page that
 * stops reading is dropped once its unsent bytes pass the bound, while a reading page goes on
 * receiving; known secrets never leave in a frame.
 */
import { createServer, get, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SseHub, sseFrame } from '../../src/dashboard/hub.js';
import { clearSecrets, registerSecrets } from '../../src/redact/redact.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let server: Server | null = null;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(null));
  server = null;
  clearSecrets();
});

async function serve(hub: SseHub, snapshot: unknown): Promise<number> {
  server = createServer((_req, res) => hub.add(res, snapshot));
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return (server.address() as AddressInfo).port;
}

/** A reading page: the raw text of its stream so far. */
function reader(port: number): { text: () => string } {
  let text = '';
  get({ host: '127.0.0.1', port, path: '/' }, (res) => res.on('data', (d) => (text += d)));
  return { text: () => text };
}

describe('SseHub', () => {
  it('sends the snapshot first, then each event as one frame', async () => {
    const hub = new SseHub();
    const port = await serve(hub, { n: 1 });
    const page = reader(port);
    for (let i = 0; i < 50 && hub.size === 0; i++) await sleep(20);
    hub.send('second', { t: 5 });
    for (let i = 0; i < 50 && !page.text().includes('event: second'); i++) await sleep(20);
    expect(page.text()).toBe(
      `retry: 2000\n\n${sseFrame('snapshot', { n: 1 })}${sseFrame('second', { t: 5 })}`,
    );
    hub.close();
  });

  it('drops a page that stops reading, and the others keep receiving', async () => {
    const hub = new SseHub(64 * 1024);
    const port = await serve(hub, {});
    const page = reader(port);
    const stuck = connect(port, '127.0.0.1', () =>
      stuck.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'),
    );
    stuck.pause();
    for (let i = 0; i < 50 && hub.size < 2; i++) await sleep(20);
    expect(hub.size).toBe(2);
    const big = 'x'.repeat(64 * 1024);
    // 400 frames of 64 KiB (25 MiB): more than the kernel's socket buffers hold for the stuck page.
    for (let i = 0; i < 400 && hub.dropped === 0; i++) {
      const t0 = performance.now();
      hub.send('second', { i, big });
      expect(performance.now() - t0).toBeLessThan(1000);
      await sleep(2);
    }
    expect(hub.dropped).toBe(1);
    expect(hub.size).toBe(1);
    hub.send('second', { last: true });
    for (let i = 0; i < 100 && !page.text().includes('"last":true'); i++) await sleep(20);
    expect(page.text()).toContain('"last":true');
    stuck.destroy();
    hub.close();
  });

  it('redacts what the redaction module knows is secret', () => {
    // Distinctive (20+ characters), so it is hidden verbatim wherever it turns up.
    registerSecrets(['s3cr3t-token-value-0123']);
    const frame = sseFrame(
      'log',
      'connecting with s3cr3t-token-value-0123 to ws://u:pw@host/socket',
    );
    expect(frame).not.toContain('s3cr3t-token-value-0123');
    expect(frame).not.toContain(':pw@');
    expect(frame).toContain('***');
  });
});
