/**
 * ERP catalogs (SPEC "CRM data": /catalogs/*) behind the two-level cache. Cache hits need only a CRM
 * token; filling the cache reads the ERP's GraphQL API with the caller's ERP session, so a miss without
 * a usable session answers like an ERP-backed module (428/409/401) unless an expired copy can be served.
 */
import type { ErpSessionScope, ErpSessionService } from '../erp-session/index.js';
import type { CacheOutcome, TwoLevelCache } from './two-level-cache.js';
import {
  GqlCatalogProducts,
  GqlCurrencies,
  GqlDepartments,
  GqlMunicipalities,
  type CurrencyList,
  type DepartmentList,
  type MunicipalityList,
  type Product,
  type ProductList,
  type ProductQuery,
} from './catalog.schemas.js';

const PRODUCTS_QUERY = '{ catalogProducts { id code name description unit category images stock prices { currencyCode amount } } }';

/** Lower case without accents, for search ("Café" matches "cafe"). */
const fold = (text: string) =>
  text
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase();

interface IndexedProduct {
  product: Product;
  text: string;
}

export interface CatalogResult<T> {
  body: T;
  outcome: CacheOutcome;
}

export function createCatalogService(deps: { cache: TwoLevelCache; sessions: ErpSessionService }) {
  const { cache, sessions } = deps;
  const viaErp = async <T>(scope: ErpSessionScope, run: (access: Awaited<ReturnType<ErpSessionService['requireAccess']>>) => Promise<T>) =>
    run(await sessions.requireAccess(scope));

  /** The entity's whole sales catalog through the cache (key `products:<entity>`). */
  const salesCatalog = (scope: ErpSessionScope) =>
    cache.get(`products:${scope.entityId}`, () =>
      viaErp(scope, async (access) =>
        (await sessions.graphql(access, PRODUCTS_QUERY, {}, GqlCatalogProducts)).catalogProducts.map((p): Product => ({
          ...p,
          prices: p.prices.map((x) => ({ currency: x.currencyCode, amount: x.amount })),
        })),
      ),
    );

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

    /**
     * The entity's sales catalog (one cache entry per entity: key `products:<entity>`), searched, filtered
     * and paged in memory. A search matches products containing every word of `q`.
     */
    async products(scope: ErpSessionScope, q: ProductQuery): Promise<CatalogResult<ProductList>> {
      const { value, outcome } = await salesCatalog(scope);
      const indexed = indexOf(value);
      const words = q.q ? fold(q.q).split(/\s+/).filter(Boolean) : [];
      const matching = indexed.filter(
        (p) =>
          words.every((w) => p.text.includes(w)) &&
          (q.category === undefined || p.product.category === q.category) &&
          (q.currency === undefined || p.product.prices.some((x) => x.currency === q.currency)),
      );
      return {
        body: {
          data: matching.slice(q.offset, q.offset + q.limit).map((p) => p.product),
          pagination: { limit: q.limit, offset: q.offset, total: matching.length },
        },
        outcome,
      };
    },

    /** One product of the entity's catalog by ERP id (same cache entry as `products`), or undefined. */
    async product(scope: ErpSessionScope, id: string): Promise<Product | undefined> {
      return (await salesCatalog(scope)).value.find((p) => p.id === id);
    },
  };
}
export type CatalogService = ReturnType<typeof createCatalogService>;

// The folded search text of each cached catalog, built once per cached value.
const indexes = new WeakMap<object, IndexedProduct[]>();
function indexOf(products: Product[]): IndexedProduct[] {
  let index = indexes.get(products);
  if (!index) {
    index = products.map((product) => ({ product, text: fold(`${product.code} ${product.name} ${product.description ?? ''}`) }));
    indexes.set(products, index);
  }
  return index;
}
