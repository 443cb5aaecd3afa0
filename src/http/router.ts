import { percentDecoded } from './percent-decode.js';

/**
 * A small method + path router: exact paths and `{param}` patterns whose last parameter may span slashes
 * (model slugs contain one). Exact paths are found by one map lookup and take precedence over patterns;
 * patterns are tried in order.
 */
export interface Route<Handler> {
  method: string;
  /** E.g. `/v1/models/{id+}`; `+` lets the parameter contain `/`. */
  pattern: string;
  handler: Handler;
}

export type RouteMatch<Handler> =
  | { kind: 'found'; handler: Handler; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

interface Compiled<Handler> {
  method: string;
  regex: RegExp;
  names: string[];
  handler: Handler;
}

export function createRouter<Handler>(routes: Route<Handler>[]) {
  const compiled: Compiled<Handler>[] = routes.map((route) => {
    const names: string[] = [];
    const source = route.pattern.replace(/\{(\w+)(\+?)\}/g, (_all, name: string, greedy: string) => {
      names.push(name);
      return greedy ? '(.+)' : '([^/]+)';
    });
    return { method: route.method, regex: new RegExp(`^${source}$`), names, handler: route.handler };
  });

  const exact = new Map<string, Map<string, Handler>>();
  for (const route of routes) {
    if (route.pattern.includes('{')) continue;
    const methods = exact.get(route.pattern) ?? new Map<string, Handler>();
    if (!methods.has(route.method)) methods.set(route.method, route.handler);
    exact.set(route.pattern, methods);
  }
  const patterns = compiled.filter((_route, index) => routes[index]?.pattern.includes('{'));

  return (method: string, path: string): RouteMatch<Handler> => {
    const methods = exact.get(path);
    const handler = methods?.get(method);
    if (handler !== undefined) return { kind: 'found', handler, params: {} };
    const allow: string[] = methods ? [...methods.keys()] : [];
    for (const route of patterns) {
      const match = route.regex.exec(path);
      if (!match) continue;
      if (route.method !== method) {
        allow.push(route.method);
        continue;
      }
      const params: Record<string, string> = {};
      route.names.forEach((name, index) => {
        params[name] = percentDecoded(match[index + 1] ?? '');
      });
      return { kind: 'found', handler: route.handler, params };
    }
    return allow.length > 0 ? { kind: 'method-not-allowed', allow } : { kind: 'not-found' };
  };
}
