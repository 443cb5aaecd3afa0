import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_ROUTES } from '../../src/app/create-app.js';
import { openApiPath } from '../../src/openapi/build-openapi.js';
import { startTestGateway, type TestGateway } from '../../src/test-support/start-test-gateway.js';

/** GET /openapi.json: generated from the route table and the zod schemas the handlers validate with. */
let env: TestGateway;
let doc: {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
};

interface Operation {
  operationId: string;
  summary: string;
  security: Record<string, unknown>[];
  parameters: { name: string; in: string; required: boolean; schema: unknown }[];
  requestBody?: { content: { 'application/json': { schema: Record<string, unknown> } } };
  responses: Record<string, { description: string }>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

beforeAll(async () => {
  env = await startTestGateway(); // no admin token: the document still describes the admin API
  const response = await fetch(`${env.gateway.url}/openapi.json`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/application\/json/);
  doc = (await response.json()) as typeof doc;
});
afterAll(() => env.stop());

describe('GET /openapi.json', () => {
  it('describes every route of the router, with its method and security', () => {
    expect(ALL_ROUTES.length).toBeGreaterThan(40);
    for (const route of ALL_ROUTES) {
      const operation = doc.paths[openApiPath(route.pattern)]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.pattern}`).toBeDefined();
      expect(operation?.summary).toBe(route.doc.summary);
      const scheme =
        route.handler.auth === 'admin' ? 'adminToken' : route.handler.auth ? 'apiKey' : undefined;
      expect(operation?.security).toEqual(scheme ? [{ [scheme]: [] }] : []);
    }
    const documented = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    expect(documented).toBe(ALL_ROUTES.length);
    for (const path of [
      '/v1/chat/completions',
      '/v1beta/{model}:generateContent',
      '/admin/v1/keys/{keyId}/rotate',
      '/v1/key',
    ]) {
      expect(doc.paths[path]).toBeDefined();
    }
  });

  it('is structurally valid OpenAPI 3.1 whose schemas all compile as JSON Schema 2020-12', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toBeTruthy();
    expect(doc.info.version).toBeTruthy();
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema({ $id: 'components', ...doc.components }, 'components');
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths)) {
      expect(path.startsWith('/')).toBe(true);
      const templated = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name).sort();
      for (const [method, operation] of Object.entries(item)) {
        expect(METHODS).toContain(method);
        expect(ids.has(operation.operationId)).toBe(false);
        ids.add(operation.operationId);
        expect(Object.keys(operation.responses).length).toBeGreaterThan(0);
        for (const response of Object.values(operation.responses)) expect(response.description).toBeTruthy();
        const inPath = operation.parameters.filter((p) => p.in === 'path');
        expect(inPath.map((p) => p.name).sort()).toEqual(templated);
        expect(inPath.every((p) => p.required)).toBe(true);
        for (const parameter of operation.parameters)
          expect(() => ajv.compile(parameter.schema as object)).not.toThrow();
        const body = operation.requestBody?.content['application/json'].schema;
        if (body) expect(() => ajv.compile(body)).not.toThrow();
      }
    }
    for (const scheme of Object.values(doc.components.securitySchemes)) {
      expect(scheme).toMatchObject({ type: 'http', scheme: 'bearer' });
    }
  });

  it('takes request bodies from the schemas the handlers validate with', async () => {
    const chat = doc.paths['/v1/chat/completions']?.post?.requestBody?.content['application/json'].schema;
    expect(chat?.required).toContain('messages');
    const createKey = doc.paths['/admin/v1/organizations/{id}/keys']?.post?.requestBody?.content[
      'application/json'
    ].schema as { additionalProperties: unknown; properties: Record<string, { maxItems?: number }> };
    expect(createKey.additionalProperties).toBe(false);
    expect(createKey.properties.models?.maxItems).toBe(100);
    const ajv = new Ajv2020({ strict: false });
    const validKey = ajv.compile(createKey);
    expect(validKey({ name: 'ci', models: ['openai/*'], monthlyLimit: '25' })).toBe(true);
    expect(validKey({ bogus: true })).toBe(false);
    const records = doc.paths['/admin/v1/records']?.get?.parameters.map((p) => p.name);
    expect(records).toEqual(
      expect.arrayContaining(['org', 'key', 'model', 'provider', 'status', 'from', 'to']),
    );
  });
});
