/**
 * A file of the sources (a page's script or stylesheet) as a module exporting its text, which the build
 * writes beside the compiled code (scripts/text-modules.mjs): `import text from './panel/admin.css.text.js'`.
 */
declare module '*.text.js' {
  const text: string;
  export default text;
}
