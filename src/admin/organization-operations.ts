import type { NewOrganization, Store } from '../store/store.js';
import {
  type CreateOrganization,
  createOrganizationSchema,
  pageQuerySchema,
  type UpdateOrganization,
  updateOrganizationSchema,
} from './admin-schemas.js';
import {
  conflict,
  missing,
  type OrganizationView,
  organizationView,
  pageOf,
  parseInput,
} from './admin-views.js';
import type { AuditWriter } from './audit.js';

/** What the organization operations use. */
export interface OrganizationOperationsDeps {
  store: Store;
  audit: AuditWriter;
  /**
   * Told right after every change of organizations or keys, before its audit entry (which may fail): the
   * authenticator forgets its cached lookups.
   */
  changed: () => void;
}

/** The organization of an id; 404 when there is none. */
async function findOrganization(store: Store, id: string): Promise<OrganizationView> {
  const org = await store.getOrganization(id);
  if (!org) throw missing(`there is no organization "${id}"`);
  return organizationView(org);
}

/** The store's update of a validated change (absent: keep; null: clear). */
function organizationPatch(id: string, input: UpdateOrganization): NewOrganization {
  return {
    id,
    name: input.name,
    monthlyLimitUsd: input.monthlyLimit,
    requestsPerMinute:
      input.rateLimit === undefined ? undefined : (input.rateLimit?.requestsPerMinute ?? null),
    cacheTtlSeconds: input.cache === undefined ? undefined : (input.cache?.ttlSeconds ?? null),
  };
}

/** Organizations: list, read, create, update, delete (which revokes its keys). Every write is audited. */
export function organizationOperations({ store, audit, changed }: OrganizationOperationsDeps) {
  return {
    async listOrganizations(query: unknown) {
      const page = parseInput(pageQuerySchema, query, 'query');
      const orgs = (await store.listOrganizations()).map(organizationView);
      return pageOf(orgs, (org) => org.id, page.limit ?? 100, page.cursor);
    },

    getOrganization: (id: string): Promise<OrganizationView> => findOrganization(store, id),

    /** Creates an organization; 409 when one with this id exists. */
    async createOrganization(actor: string, body: unknown): Promise<OrganizationView> {
      const input: CreateOrganization = parseInput(createOrganizationSchema, body, 'body');
      const created = await store.createOrganization({
        id: input.id,
        name: input.name ?? input.id,
        monthlyLimitUsd: input.monthlyLimit ?? null,
        requestsPerMinute: input.rateLimit?.requestsPerMinute ?? null,
        cacheTtlSeconds: input.cache?.ttlSeconds ?? null,
      });
      if (!created) throw conflict(`organization "${input.id}" already exists`);
      const org = organizationView(created);
      changed();
      await audit(actor, 'organization.create', `organization:${org.id}`, null, org);
      return org;
    },

    /** Changes name, cap, rate limit or response cache: an absent member keeps its value, null clears it. */
    async updateOrganization(actor: string, id: string, body: unknown): Promise<OrganizationView> {
      const input = parseInput(updateOrganizationSchema, body, 'body');
      const before = await findOrganization(store, id);
      const updated = await store.updateOrganization(organizationPatch(id, input));
      // Deleted since `findOrganization`: the update wrote nothing.
      if (!updated) throw missing(`there is no organization "${id}"`);
      const org = organizationView(updated);
      changed();
      await audit(actor, 'organization.update', `organization:${id}`, before, org);
      return org;
    },

    /**
     * Deletes an organization and revokes its keys in the same transaction (keys created meanwhile included),
     * so that an organization created again with the same id never brings old keys back.
     */
    async deleteOrganization(actor: string, id: string): Promise<OrganizationView> {
      const before = await findOrganization(store, id);
      if (!(await store.deleteOrganizationAndKeys(id))) throw missing(`there is no organization "${id}"`);
      changed();
      await audit(actor, 'organization.delete', `organization:${id}`, before, null);
      return before;
    },
  };
}
