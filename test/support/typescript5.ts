import type { ResolveHook } from 'node:module';

// openapi-typescript 7 prints the types it generates with TypeScript 5's compiler API (its peer
// dependency); Dossier compiles with TypeScript 7, whose package has no such API. In a process that
// imports test/support/typescript5-register.js, openapi-typescript's `typescript` is TypeScript 5
// (the `typescript5` dev dependency); every other import resolves as usual.

/** Resolves openapi-typescript's `typescript` to `typescript5`. */
export const resolve: ResolveHook = (specifier, context, nextResolve) =>
  specifier === 'typescript' && context.parentURL?.includes('/node_modules/openapi-typescript/')
    ? nextResolve('typescript5', context)
    : nextResolve(specifier, context);
