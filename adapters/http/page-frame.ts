import { isDossierError } from '../../lib/index.js';
import { STORE_RETRY_AFTER_SECONDS } from './errors.js';
import { escapeHtml } from './escape.js';
import frameCss from './page-frame/frame.css.text.js';
import type { Call, Route } from './route.js';

// The frame of Dossier's two pages for people, the administration panel (admin/) and the documents
// workspace (workspace/): the HTML around each view, the stylesheet both start with, the icon, and
// what a page shows while the store does not answer. Each page serves one stylesheet, one script and
// its icon from its own `/assets/`, under a CSP that allows only those (admin/pages.ts, `html`).

/**
 * The stylesheet both pages start with (page-frame/frame.css): the page's own follows it in the one
 * file served, and sets the tokens (colours, the text's size) it uses.
 */
export const FRAME_CSS: string = frameCss;

/** A page's icon: a white D on a rounded square of `color`, so that browsers find one without asking elsewhere. */
export function pageIcon(color: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="${color}"/><text x="16" y="22.5" font-family="system-ui,sans-serif" font-size="18" font-weight="700" fill="#fff" text-anchor="middle">D</text></svg>`;
}

/** A page in the frame. */
export interface FramedPage {
  /** Where the page's own paths are: `/admin` or `/workspace`, under the mount's prefix. */
  base: string;
  /** The page's name after "Dossier", in its title and its bar; its stylesheet and script are `<base>/assets/<name>.css` and `.js`. */
  name: 'admin' | 'workspace';
  /** The view's title, before "· Dossier <name>". */
  title: string;
  /** The colour schemes the stylesheet has. */
  colorScheme: 'light' | 'light dark';
  /** Whether the script is an ES module; a classic script is deferred. */
  module: boolean;
  /** Attributes of `<body>` besides `data-base` (each with its leading space, escaped). */
  data?: string;
  /** What the bar shows after the brand (a navigation, a Sign out form). */
  bar: string;
  /** The view. */
  main: string;
}

/** The HTML page: head (the page's stylesheet, script and icon only), a skip link, the bar and the view. */
export function framedPage(page: FramedPage): string {
  const { base, name } = page;
  const script = page.module
    ? `<script type="module" src="${base}/assets/${name}.js"></script>`
    : `<script src="${base}/assets/${name}.js" defer></script>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<meta name="color-scheme" content="${page.colorScheme}">
<link rel="icon" href="${base}/assets/icon.svg" type="image/svg+xml">
<title>${escapeHtml(page.title)} · Dossier ${name}</title>
<link rel="stylesheet" href="${base}/assets/${name}.css">
${script}
</head>
<body data-base="${base}"${page.data ?? ''}>
<a class="skip" href="#main">Skip to content</a>
<header class="bar">
<a class="brand" href="${base}"><span class="logo" aria-hidden="true">D</span>Dossier <span class="brand-sub">${name}</span></a>
${page.bar}
</header>
<main id="main" class="wrap" tabindex="-1">
${page.main}
</main>
</body>
</html>
`;
}

/**
 * A page's handler whose store outage is answered with the page `unavailable` makes (503, with
 * `Retry-After`), not the API's JSON; any other error goes on to the mount's answer.
 */
export function storeOutage(unavailable: (call: Call) => void): (handle: (call: Call) => Promise<void>) => Route['handle'] {
  return (handle) => async (call) => {
    try {
      await handle(call);
    } catch (error) {
      if (!isDossierError(error, 'ERR_STORE_UNAVAILABLE')) throw error;
      call.reply.header('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
      unavailable(call);
    }
  };
}
