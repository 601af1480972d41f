/**
 * A string value that Keyv's serializer escapes: one that starts with `:` (Keyv writes it with one more
 * `:` in front, and reads `:base64:…` back as a Buffer). In JSON text, such a value is a `"` right after
 * `:`, `,` or `[`, followed by `:`; no `":` can appear inside a string, where a quote is escaped.
 */
const ESCAPED = /[:,[]":/;

/**
 * Keyv's serializer (`@keyv/serialize`), the same text for every value Dossier stores, without its cost:
 * Keyv walks every value by hand to escape strings that start with `:`; here `JSON.stringify` does the
 * walk, and only a value holding such a string pays for the escaping.
 */
export function serialize(data: unknown): string {
  const text = JSON.stringify(data);
  if (!ESCAPED.test(text)) return text;
  return JSON.stringify(data, (_key, value: unknown) =>
    typeof value === 'string' && value.startsWith(':') ? `:${value}` : value,
  );
}

/**
 * Keyv's deserializer, without its reviver (called for every value of every record) on text that holds
 * no escaped string, where plain `JSON.parse` gives the same value. Reads what `@keyv/sqlite`,
 * `@keyv/redis` and `@keyv/postgres` wrote.
 */
export function deserialize<T>(text: string): T {
  if (!ESCAPED.test(text)) return JSON.parse(text) as T;
  return JSON.parse(text, (_key, value: unknown) => {
    if (typeof value !== 'string' || !value.startsWith(':')) return value;
    return value.startsWith(':base64:') ? Buffer.from(value.slice(8), 'base64') : value.slice(1);
  }) as T;
}
