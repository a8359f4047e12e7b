/**
 * Server-sent events to the pages that watch a run. A page that stops reading must never slow
 * or stop the run: writes never wait, and a client whose unsent bytes pass its bound is
 * dropped (its socket destroyed); a reloaded page catches up from the snapshot it is sent
 * first. Every payload passes through the redaction module before it leaves the process.
 */
import type { ServerResponse } from 'node:http';
import { redactText } from '../redact/redact.js';

/** Unsent bytes one client may hold beyond its snapshot before it is dropped. */
export const CLIENT_BUFFER_BYTES = 1 << 20;
/** A comment line now and then keeps proxies and the browser from closing an idle stream. */
const HEARTBEAT_MS = 15_000;

interface Client {
  res: ServerResponse;
  /** writableLength right after the snapshot: what the client may still hold of it. */
  baseBytes: number;
}

/** One SSE frame: `event:` and `data:` lines (the JSON has no newline of its own). */
export function sseFrame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${redactText(JSON.stringify(data))}\n\n`;
}

export class SseHub {
  private readonly clients = new Set<Client>();
  private readonly heartbeat: NodeJS.Timeout;
  /** Clients dropped for not reading (for tests and the soak benchmark). */
  dropped = 0;

  constructor(private readonly bufferBytes = CLIENT_BUFFER_BYTES) {
    this.heartbeat = setInterval(() => this.sendRaw(': keep-alive\n\n'), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  get size(): number {
    return this.clients.size;
  }

  /** A new page: the stream's headers, then `snapshot` (everything so far), then live frames. */
  add(res: ServerResponse, snapshot: unknown): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write('retry: 2000\n\n');
    res.write(sseFrame('snapshot', snapshot));
    const client: Client = { res, baseBytes: res.writableLength };
    this.clients.add(client);
    const forget = () => this.clients.delete(client);
    res.on('close', forget);
    res.on('error', forget);
  }

  /** Sends one event to every page; never waits for a slow one. */
  send(event: string, data: unknown): void {
    if (this.clients.size === 0) return;
    this.sendRaw(sseFrame(event, data));
  }

  private sendRaw(frame: string): void {
    for (const c of this.clients) {
      if (c.res.destroyed) {
        this.clients.delete(c);
        continue;
      }
      if (c.res.writableLength - c.baseBytes > this.bufferBytes) {
        this.drop(c);
        continue;
      }
      c.res.write(frame);
      // The snapshot drains first; what is left of it no longer counts as allowance.
      if (c.res.writableLength < c.baseBytes) c.baseBytes = c.res.writableLength;
    }
  }

  private drop(c: Client): void {
    this.clients.delete(c);
    this.dropped++;
    c.res.destroy();
  }

  /** Ends every stream (the dashboard is closing). */
  close(): void {
    clearInterval(this.heartbeat);
    for (const c of this.clients) c.res.end();
    this.clients.clear();
  }
}
