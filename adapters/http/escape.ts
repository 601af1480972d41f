/** Escapes text for HTML content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/**
 * A URL made fit for a `Location` header: what a URL may not hold percent-encoded, escapes already
 * there left alone, a lone surrogate replaced (as the `encodeurl` package does for Koa and Express).
 */
export function encodeUrl(url: string): string {
  return url
    .replace(/([\uD800-\uDBFF][\uDC00-\uDFFF])|[\uD800-\uDFFF]/g, (_, pair: string | undefined) => pair ?? '\uFFFD')
    .replace(/(?:[^\x21\x23-\x3B\x3D\x3F-\x5F\x61-\x7A\x7C\x7E]+|%+(?![0-9A-Fa-f]{2})){1,1024}/g, encodeURI);
}
