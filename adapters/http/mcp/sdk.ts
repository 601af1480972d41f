import { DossierError } from '../../../lib/index.js';

/** The MCP server SDK, as its package exports it. */
export type McpSdk = typeof import('@modelcontextprotocol/server');

/** The package of the MCP server SDK, as `npm install` names it. */
export const MCP_SDK = '@modelcontextprotocol/server';

let loading: Promise<McpSdk> | undefined;

/**
 * Loads the MCP server SDK on the first request to `/mcp` (or `dossier mcp`'s start): an optional peer
 * dependency, installed by an application that serves agents, as a framework is by one that mounts it.
 * @throws DossierError `ERR_NOT_IMPLEMENTED` naming the line to run when it is not installed.
 */
export function loadMcpSdk(): Promise<McpSdk> {
  // Imported by Node when the app runs, never by a bundler (Next.js) when it is built: an app without the
  // SDK still builds, and /mcp says what to install.
  return (loading ??= import(/* webpackIgnore: true */ /* turbopackIgnore: true */ MCP_SDK).catch((error: unknown) => {
    loading = undefined;
    const { code, message } = error as { code?: string; message?: string };
    if (code !== 'ERR_MODULE_NOT_FOUND' || !message?.includes(MCP_SDK)) throw error;
    throw new DossierError('ERR_NOT_IMPLEMENTED', `This server was built without MCP: run npm install ${MCP_SDK}`, {
      cause: error,
    });
  }) as Promise<McpSdk>);
}
