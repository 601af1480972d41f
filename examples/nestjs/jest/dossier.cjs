// Jest loads a test's require() through a module system of its own, which cannot load an ES module (but
// with Jest 30.5+ on Node 24.9+), and Dossier is one: package.json's jest.moduleNameMapper sends
// `dossier` here, and Node's own require loads it (require(esm), Node 20.19 and later). Jest stands in for
// node:module with a class that loads through Jest; the class it extends is Node's.
const { createRequire } = Object.getPrototypeOf(require('node:module'));

module.exports = createRequire(__filename)('dossier');
