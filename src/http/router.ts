/**
 * A small method + path router: exact paths and `{param}` patterns whose last parameter may span slashes
 * (model slugs contain one).
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

  return (method: string, path: string): RouteMatch<Handler> => {
    const allow: string[] = [];
    for (const route of compiled) {
      const match = route.regex.exec(path);
      if (!match) continue;
      if (route.method !== method) {
        allow.push(route.method);
        continue;
      }
      const params: Record<string, string> = {};
      route.names.forEach((name, index) => {
        params[name] = safeDecode(match[index + 1] ?? '');
      });
      return { kind: 'found', handler: route.handler, params };
    }
    return allow.length > 0 ? { kind: 'method-not-allowed', allow } : { kind: 'not-found' };
  };
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
