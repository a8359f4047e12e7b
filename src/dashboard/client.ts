/**
 * assets/dashboard.js: the page script, plain browser JavaScript (no build step, no module
 * loader) assembled from its parts. It reads only what the dashboard serves.
 */
import { CLIENT_BROWSE } from './client-browse.js';
import { CLIENT_CHARTS } from './client-charts.js';
import { CLIENT_COMMON } from './client-common.js';
import { CLIENT_LIVE } from './client-live.js';

export const DASHBOARD_SCRIPT = `(function () {
'use strict';
${CLIENT_COMMON}
${CLIENT_CHARTS}
${CLIENT_LIVE}
${CLIENT_BROWSE}
if (document.body.dataset.mode === 'live') live(); else browse();
})();
`;
