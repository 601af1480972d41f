import { expect } from 'chai';
import { join } from 'node:path';
import ts from 'typescript5';
import { projectRoot } from '../support/paths.js';

// One naming rule for what the library takes and returns: JavaScript's camelCase. The HTTP API's
// snake_case and Laravel shapes are made in adapters/http, at the edge. This walks every name the
// package's main entry exports (dist/lib/index.d.ts, as an embedder's compiler sees it) with the
// TypeScript compiler API: every property of every type reachable from an export (fields, method
// parameters and results, type arguments), and fails on a name with `_` that is not on the list below.
// (TypeScript 5's API: TypeScript 7, which builds Dossier, has no stable compiler API yet.)

/**
 * The types that keep the wire's snake_case, each with why. Shrinking this list is welcome; growing it
 * needs a reason as good.
 */
const ALLOWED: Record<string, string> = {
  // The signed body POSTed to a webhook, handed to in-process listeners as it is posted: a wire format
  // that third parties verify byte for byte (docs/contract.md §11).
  WatchEvent: 'the webhook body',
};

/** `Type.property` for each property whose name has `_`, named by the type that declares it. */
function snakeNames(): string[] {
  const root = projectRoot();
  const entry = join(root, 'dist/lib/index.d.ts');
  const program = ts.createProgram([entry], {
    strict: true,
    skipLibCheck: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
  });
  const checker = program.getTypeChecker();
  const ours = (declaration: ts.Declaration): boolean => declaration.getSourceFile().fileName.startsWith(join(root, 'dist/'));
  /** The name of the interface or type alias a declaration is inside. */
  const ownerOf = (declaration: ts.Node): string => {
    for (let node: ts.Node | undefined = declaration.parent; node !== undefined; node = node.parent) {
      if ((ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isClassDeclaration(node)) && node.name)
        return node.name.text;
    }
    return '(anonymous)';
  };
  const seen = new Set<ts.Type>();
  const found = new Set<string>();
  const visit = (type: ts.Type): void => {
    if (seen.has(type)) return;
    seen.add(type);
    if (type.isUnionOrIntersection()) return type.types.forEach(visit);
    if (type.flags & ts.TypeFlags.Object) checker.getTypeArguments(type as ts.TypeReference).forEach(visit);
    // What a dependency declares (Node's, TypeBox's, keyv's types) is named by its authors.
    const declarations = (type.aliasSymbol ?? type.getSymbol())?.getDeclarations() ?? [];
    if (declarations.length > 0 && !declarations.some(ours)) return;
    for (const property of checker.getPropertiesOfType(type)) {
      const declaration = property.getDeclarations()?.find(ours);
      if (declaration === undefined) continue;
      if (property.getName().includes('_')) found.add(`${ownerOf(declaration)}.${property.getName()}`);
      visit(checker.getTypeOfSymbolAtLocation(property, declaration));
    }
    for (const kind of [ts.SignatureKind.Call, ts.SignatureKind.Construct]) {
      for (const signature of checker.getSignaturesOfType(type, kind)) {
        for (const parameter of signature.getParameters()) {
          const declaration = parameter.getDeclarations()?.[0];
          if (declaration !== undefined) visit(checker.getTypeOfSymbolAtLocation(parameter, declaration));
        }
        visit(checker.getReturnTypeOfSignature(signature));
      }
    }
    for (const index of checker.getIndexInfosOfType(type)) visit(index.type);
  };
  const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
  for (const exported of checker.getExportsOfModule(module)) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    if (symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Class))
      visit(checker.getDeclaredTypeOfSymbol(symbol));
    const declaration = symbol.getDeclarations()?.[0];
    if (declaration !== undefined && symbol.flags & ts.SymbolFlags.Value)
      visit(checker.getTypeOfSymbolAtLocation(symbol, declaration));
  }
  return [...found].sort();
}

describe('the library speaks one language: camelCase in every exported type', function () {
  this.timeout(60_000);
  let names: string[];
  before(() => {
    names = snakeNames();
  });

  it('has no snake_case name in what dist/lib/index.d.ts exports, but on the justified list', () => {
    const unlisted = names.filter((name) => ALLOWED[name.split('.')[0]!] === undefined);
    expect(unlisted).to.deep.equal([]);
  });

  it('finds what it looks for: the listed types are reached, and each still has a snake_case name', () => {
    for (const type of Object.keys(ALLOWED))
      expect(
        names.some((name) => name.startsWith(`${type}.`)),
        type,
      ).to.equal(true);
  });
});
