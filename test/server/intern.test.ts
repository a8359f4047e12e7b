import { describe, expect, it } from 'vitest';
import { flat, intern } from '../../src/server/intern.js';

describe('intern', () => {
  it('returns the same text for slices and concatenations, beyond the pool bound too', () => {
    const url = 'http://localhost/socket/websocket?vsn=2.0.0&apikey=eyJhbGciOiJIUzI1NiJ9.e30.sig';
    const token = url.slice(url.indexOf('apikey=') + 7);
    expect(intern(token)).toBe('eyJhbGciOiJIUzI1NiJ9.e30.sig');
    expect(intern(['realtime', ':', 'bench'].join(''))).toBe('realtime:bench');
    for (let i = 0; i < 5000; i++) expect(intern(`user-${i}`)).toBe(`user-${i}`);
    expect(flat('é ü ✓')).toBe('é ü ✓');
  });
});
