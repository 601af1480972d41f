import type { Route } from './route.js';

/** The methods the router knows; any other is answered 501 (as @koa/router does). */
const KNOWN_METHODS = new Set(['HEAD', 'OPTIONS', 'GET', 'PUT', 'PATCH', 'POST', 'DELETE']);

/** The routes of one path pattern. */
export interface PathRoutes {
  /** The pattern (`/api/v1/documents/:id`). */
  readonly pattern: string;
  /**
   * The `route` label of metrics and logs: the pattern of a route of the API; `null` for the panel's
   * own pages and assets, which the OpenAPI document leaves out too.
   */
  readonly label: string | null;
  /** Its routes by method, upper case; HEAD is answered by GET's. */
  readonly byMethod: ReadonlyMap<string, Route>;
  /** The `Allow` header of a method it does not take: each method in the table's order, HEAD before GET. */
  readonly allow: string;
}

/** What a path matched: its routes and its parameters. */
export interface PathMatch {
  readonly routes: PathRoutes;
  readonly params: Record<string, string>;
}

/** What the router decided for a method on a path. */
export type Routing =
  | { kind: 'route'; route: Route; match: PathMatch }
  | { kind: 'not-found' }
  | { kind: 'not-allowed'; allow: string }
  | { kind: 'not-implemented'; allow: string };

interface ParamPattern {
  regex: RegExp;
  names: string[];
  routes: PathRoutes;
}

/** Decodes a parameter as @koa/router does: a malformed escape leaves it as it came. */
function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** A segment `.` or `..`, written plainly or escaped (`%2e%2E`): a path never resolved into another. */
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?=\/|$)/i;

/**
 * Matches paths to the route table: as sent, case-sensitively, with or without one trailing slash, a
 * parameter being one segment (`[^/]+`), decoded; a path with a dot segment matches nothing, on every
 * mount alike. A path without parameters is one map lookup.
 */
export class Router {
  private readonly fixed = new Map<string, PathRoutes>();
  private readonly patterns: ParamPattern[] = [];

  /**
   * @param routes the route table
   * @param served whether the mount serves a route; a pattern none of whose routes it serves is
   *   unknown (404) but keeps its label (without an admin token, /metrics is still labelled /metrics)
   */
  constructor(routes: readonly Route[], served: (route: Route) => boolean = () => true) {
    const byPattern = new Map<string, Route[]>();
    for (const route of routes) byPattern.set(route.path, [...(byPattern.get(route.path) ?? []), route]);
    for (const [pattern, all] of byPattern) {
      const group = all.filter(served);
      const byMethod = new Map(group.map((route) => [route.method.toUpperCase(), route]));
      const allow = group
        .flatMap((route) => (route.method === 'get' ? ['HEAD', 'GET'] : [route.method.toUpperCase()]))
        .join(', ');
      const label = all.every((route) => route.hidden) ? null : pattern;
      const entry: PathRoutes = { pattern, label, byMethod, allow };
      const names = [...pattern.matchAll(/:([A-Za-z_]\w*)/g)].map((match) => match[1]!);
      if (names.length === 0) {
        this.fixed.set(pattern, entry);
        continue;
      }
      const source = pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z_]\w*/g, '([^/]+)');
      this.patterns.push({ regex: new RegExp(`^${source}/?$`), names, routes: entry });
    }
  }

  /** The routes of `path` and its parameters; `undefined` when no pattern takes it. */
  match(path: string): PathMatch | undefined {
    if (DOT_SEGMENT.test(path)) return undefined;
    const plain = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const fixed = this.fixed.get(plain);
    if (fixed !== undefined) return { routes: fixed, params: {} };
    for (const { regex, names, routes } of this.patterns) {
      const found = regex.exec(path);
      if (found !== null) return { routes, params: Object.fromEntries(names.map((name, i) => [name, decode(found[i + 1]!)])) };
    }
    return undefined;
  }

  /**
   * Where `method` on `path` goes: its route (HEAD to GET's); else 501 for a method the router does not
   * know, 405 for one the path does not take (OPTIONS included: every answer here is JSON), 404.
   */
  route(method: string, path: string): Routing {
    const match = this.match(path);
    if (!KNOWN_METHODS.has(method)) return { kind: 'not-implemented', allow: match?.routes.allow ?? '' };
    if (match === undefined || match.routes.byMethod.size === 0) return { kind: 'not-found' };
    const route = match.routes.byMethod.get(method === 'HEAD' ? 'GET' : method);
    if (route !== undefined) return { kind: 'route', route, match };
    return { kind: 'not-allowed', allow: match.routes.allow };
  }
}
