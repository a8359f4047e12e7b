/**
 * The page script is one piece of browser JavaScript that parses (its parts are strings to
 * TypeScript).
 */
import { describe, expect, it } from 'vitest';
import { DASHBOARD_SCRIPT } from '../../src/dashboard/client.js';

describe('DASHBOARD_SCRIPT', () => {
  it('parses as a script and starts the page for either mode', () => {
    expect(() => new Function(DASHBOARD_SCRIPT)).not.toThrow();
    expect(DASHBOARD_SCRIPT).toContain(
      "if (document.body.dataset.mode === 'live') live(); else browse();",
    );
  });
});
