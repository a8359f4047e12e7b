import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { findListeningPid, listeningInodes } from '../../src/monitor/listener.js';

// /proc/net/tcp: port 0x1F90 = 8080 listening (st 0A) with inode 555; the same port as an
// established connection (st 01), which is not a listener.
const TABLE = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 555 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1F90 0100007F:D431 01 00000000:00000000 00:00000000 00000000  1000        0 556 1 0000000000000000 20 4 30 10 -1
   2: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 557 1 0000000000000000 100 0 0 10 0
`;

describe('listeningInodes', () => {
  it('finds the listening socket of a port, not its connections or other ports', () => {
    expect(listeningInodes(TABLE, 8080)).toEqual([555]);
    expect(listeningInodes(TABLE, 22)).toEqual([557]);
    expect(listeningInodes(TABLE, 9999)).toEqual([]);
  });
});

describe('findListeningPid', () => {
  let server: Server | null = null;
  afterEach(
    () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
  );

  it('finds this process listening on a free loopback port, and nothing on a closed one', async () => {
    server = createServer();
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    expect(findListeningPid(port)).toBe(process.pid);
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = null;
    expect(findListeningPid(port)).toBeNull();
  });
});
