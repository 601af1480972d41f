import adminCss from './panel/admin.css.text.js';
import adminJs from './panel/admin.js.text.js';
import { FRAME_CSS, pageIcon } from '../page-frame.js';

// The panel's script and stylesheet are files of their own (panel/admin.js, checked by tsc through its
// `// @ts-check`, and panel/admin.css, both formatted by prettier), which the build turns into modules
// exporting their text (scripts/text-modules.mjs): imported, not read from disk, so that a bundler or an
// output tracer (Next.js) carries them along.

/**
 * The panel's only script, served as `/admin/assets/admin.js` (the CSP allows no inline script). It
 * turns the page's forms and buttons into calls to the admin API with the session cookie (the browser
 * adds the `Origin` the API checks), shows a new plaintext key once, asks before a revoke or a roll,
 * and refreshes the keys table from the server's own HTML.
 */
export const ADMIN_JS: string = adminJs;

/**
 * The panel's stylesheet, served as `/admin/assets/admin.css` (the CSP allows no inline style): the
 * frame's, then the panel's own.
 */
export const ADMIN_CSS: string = `${FRAME_CSS}\n${adminCss}`;

/** The panel's icon, so that browsers find one without asking elsewhere. */
export const ADMIN_ICON = pageIcon('#2457d6');
