/**
 * ERP catalogs (SPEC "CRM data": /catalogs/*) behind the two-level cache. Cache hits need only a CRM
 * token; filling the cache reads the ERP's GraphQL API with the caller's ERP session, so a miss without
 * a usable session answers like an ERP-backed module (428/409/401) unless an expired copy can be served.
 */
import type { ErpSessionScope, ErpSessionService } from '../erp-session/index.js';
import type { CacheOutcome, TwoLevelCache } from './two-level-cache.js';
import { GqlCurrencies, GqlDepartments, GqlMunicipalities, type CurrencyList, type DepartmentList, type MunicipalityList } from './catalog.schemas.js';

export interface CatalogResult<T> {
  body: T;
  outcome: CacheOutcome;
}

export function createCatalogService(deps: { cache: TwoLevelCache; sessions: ErpSessionService }) {
  const { cache, sessions } = deps;
  const viaErp = async <T>(scope: ErpSessionScope, run: (access: Awaited<ReturnType<ErpSessionService['requireAccess']>>) => Promise<T>) =>
    run(await sessions.requireAccess(scope));

  return {
    async currencies(scope: ErpSessionScope): Promise<CatalogResult<CurrencyList>> {
      const { value, outcome } = await cache.get('currencies', () =>
        viaErp(scope, async (access) => (await sessions.graphql(access, '{ currencies { code name symbol decimals } }', {}, GqlCurrencies)).currencies),
      );
      return { body: { data: value }, outcome };
    },

    async departments(scope: ErpSessionScope): Promise<CatalogResult<DepartmentList>> {
      const { value, outcome } = await cache.get('departments', () =>
        viaErp(scope, async (access) => (await sessions.graphql(access, '{ departments { code name } }', {}, GqlDepartments)).departments),
      );
      return { body: { data: value }, outcome };
    },

    /** All municipalities are cached under one key; `department` filters them in memory. */
    async municipalities(scope: ErpSessionScope, department: string | undefined): Promise<CatalogResult<MunicipalityList>> {
      const { value, outcome } = await cache.get('municipalities', () =>
        viaErp(scope, async (access) =>
          (await sessions.graphql(access, '{ municipalities { code name departmentCode } }', {}, GqlMunicipalities)).municipalities.map((m) => ({
            code: m.code,
            name: m.name,
            department_code: m.departmentCode,
          })),
        ),
      );
      return { body: { data: department === undefined ? value : value.filter((m) => m.department_code === department) }, outcome };
    },
  };
}
export type CatalogService = ReturnType<typeof createCatalogService>;
