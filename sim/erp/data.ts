/**
 * The ERP simulator's data: users (with API keys and memberships), entities, clients, products,
 * bundles, currencies, invoices with lines, and Guatemala's real departments and municipalities.
 * `createDemoErpData()` knows the CRM demo users and entities; tests mutate the returned object.
 */
import { readFileSync } from 'node:fs';

export interface SimEntity {
  id: number;
  name: string;
  logo: string | null;
}
export interface SimMembership {
  entityId: number;
  employeeId: number | null;
  active: boolean;
}
export interface SimUser {
  id: number;
  email: string;
  name: string;
  password: string;
  apiKey: string;
  selectedEntityId: number;
  memberships: SimMembership[];
}
export interface SimClient {
  id: string;
  entityId: number;
  name: string;
}
export interface SimProduct {
  id: string;
  code: string;
  name: string;
  productType: 'goods' | 'service';
}
export interface SimBundle {
  id: string;
  code: string;
  name: string;
}
/** A product of an entity's sales catalog, with prices per currency as decimal strings. */
export interface SimCatalogProduct {
  id: string;
  entityId: number;
  code: string;
  name: string;
  description: string | null;
  unit: string;
  category: string | null;
  images: string[];
  stock: number;
  prices: { currencyCode: string; amount: string }[];
}
export interface SimLine {
  id: string;
  quantity: number;
  unitPrice: number;
  itemId: string | null;
  bundleId: string | null;
  serial: { id: string; number: string } | null;
  lot: { id: string; name: string; expirationDate: string | null } | null;
}
export interface SimInvoice {
  id: string;
  number: string;
  entityId: number;
  clientId: string;
  /** Day of the invoice, YYYY-MM-DD. */
  date: string;
  issuedAt: string;
  currencyCode: string;
  status: 'issued' | 'paid' | 'void';
  lines: SimLine[];
}
export interface SimCurrency {
  code: string;
  name: string;
  symbol: string;
  decimals: number;
}
export interface SimDepartment {
  code: string;
  name: string;
  municipalities: { code: string; name: string }[];
}

export interface ErpData {
  entities: SimEntity[];
  users: SimUser[];
  clients: SimClient[];
  products: SimProduct[];
  /** Sales catalogs, per entity. */
  catalogProducts: SimCatalogProduct[];
  bundles: SimBundle[];
  invoices: SimInvoice[];
  currencies: SimCurrency[];
  departments: SimDepartment[];
  /** OAuth access token → user e-mail (tokens the web would get from the code exchange). */
  oauthTokens: Map<string, string>;
}

/** Guatemala's departments and municipalities (see data/README.md for the source). */
export function loadGuatemala(): SimDepartment[] {
  const url = new URL('./data/gt-departments-municipalities.json', import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { departments: SimDepartment[] }).departments;
}

const CURRENCIES: SimCurrency[] = [
  { code: 'GTQ', name: 'Quetzal', symbol: 'Q', decimals: 2 },
  { code: 'USD', name: 'US Dollar', symbol: '$', decimals: 2 },
  { code: 'EUR', name: 'Euro', symbol: '€', decimals: 2 },
  { code: 'MXN', name: 'Peso mexicano', symbol: '$', decimals: 2 },
];

const day = (base: Date, offset: number) => new Date(base.getTime() - offset * 86_400_000).toISOString().slice(0, 10);

/** An empty data set with only the reference catalogs (currencies, departments). */
export function createEmptyErpData(): ErpData {
  return {
    entities: [],
    users: [],
    clients: [],
    products: [],
    catalogProducts: [],
    bundles: [],
    invoices: [],
    currencies: CURRENCIES.map((c) => ({ ...c })),
    departments: loadGuatemala(),
    oauthTokens: new Map(),
  };
}

/**
 * The demo data set: entities 1 "Demo Company" and 2 "Second Company"; users admin@example.com (ERP user
 * 1001, member of both) and seller@example.com (1002, entity 1) with the demo passwords; clients
 * CL-1001, CL-1002 (entity 1) and CL-2001 (entity 2) with invoices on recent days covering every line kind.
 */
export function createDemoErpData(today: Date = new Date()): ErpData {
  const data = createEmptyErpData();
  data.entities.push({ id: 1, name: 'Demo Company', logo: null }, { id: 2, name: 'Second Company', logo: null });
  data.users.push(
    {
      id: 1001,
      email: 'admin@example.com',
      name: 'Demo Admin',
      password: 'admin123',
      apiKey: 'demo-admin-api-key-1001',
      selectedEntityId: 1,
      memberships: [
        { entityId: 1, employeeId: 2001, active: true },
        { entityId: 2, employeeId: 2002, active: true },
      ],
    },
    {
      id: 1002,
      email: 'seller@example.com',
      name: 'Demo Seller',
      password: 'seller123',
      apiKey: 'demo-seller-api-key-1002',
      selectedEntityId: 1,
      memberships: [{ entityId: 1, employeeId: 2003, active: true }],
    },
  );
  data.oauthTokens.set('demo-oauth-admin', 'admin@example.com');
  data.oauthTokens.set('demo-oauth-seller', 'seller@example.com');
  data.clients.push(
    { id: 'CL-1001', entityId: 1, name: 'Comercial La Ceiba' },
    { id: 'CL-1002', entityId: 1, name: 'Farmacia San Rafael' },
    { id: 'CL-2001', entityId: 2, name: 'Distribuidora del Norte' },
  );
  data.products.push(
    { id: 'P-1', code: 'CAF-500', name: 'Café molido 500 g', productType: 'goods' },
    { id: 'P-2', code: 'AMOX-500', name: 'Amoxicilina 500 mg', productType: 'goods' },
    { id: 'P-3', code: 'LAP-14', name: 'Laptop 14"', productType: 'goods' },
    { id: 'P-4', code: 'INST-01', name: 'Instalación', productType: 'service' },
  );
  data.bundles.push({ id: 'B-1', code: 'KIT-OF', name: 'Kit de oficina' });
  const img = (name: string) => `https://erp.example.com/images/${name}.jpg`;
  data.catalogProducts.push(
    {
      id: 'P-1',
      entityId: 1,
      code: 'CAF-500',
      name: 'Café molido 500 g',
      description: 'Café de altura de Huehuetenango',
      unit: 'bolsa',
      category: 'Alimentos',
      images: [img('caf-500')],
      stock: 120,
      prices: [
        { currencyCode: 'GTQ', amount: '45.00' },
        { currencyCode: 'USD', amount: '5.90' },
      ],
    },
    {
      id: 'P-3',
      entityId: 1,
      code: 'LAP-14',
      name: 'Laptop 14"',
      description: '16 GB, 512 GB SSD',
      unit: 'unidad',
      category: 'Equipo',
      images: [img('lap-14')],
      stock: 8,
      prices: [{ currencyCode: 'GTQ', amount: '6499.00' }],
    },
    {
      id: 'P-4',
      entityId: 1,
      code: 'INST-01',
      name: 'Instalación',
      description: null,
      unit: 'servicio',
      category: 'Servicios',
      images: [],
      stock: 0,
      prices: [{ currencyCode: 'GTQ', amount: '250.00' }],
    },
    {
      id: 'P-2',
      entityId: 2,
      code: 'AMOX-500',
      name: 'Amoxicilina 500 mg',
      description: 'Caja de 21 cápsulas',
      unit: 'caja',
      category: 'Farmacia',
      images: [img('amox-500')],
      stock: 300,
      prices: [{ currencyCode: 'GTQ', amount: '38.50' }],
    },
  );
  let seq = 0;
  const line = (partial: Partial<SimLine> & Pick<SimLine, 'quantity' | 'unitPrice'>): SimLine => ({
    id: `L-${++seq}`,
    itemId: null,
    bundleId: null,
    serial: null,
    lot: null,
    ...partial,
  });
  const invoice = (id: string, entityId: number, clientId: string, offset: number, lines: SimLine[]): SimInvoice => ({
    id,
    number: `FAC-${id}`,
    entityId,
    clientId,
    date: day(today, offset),
    issuedAt: `${day(today, offset)}T15:00:00.000Z`,
    currencyCode: 'GTQ',
    status: 'issued',
    lines,
  });
  data.invoices.push(
    invoice('9001', 1, 'CL-1001', 1, [line({ quantity: 2, unitPrice: 45, itemId: 'P-1' }), line({ quantity: 1, unitPrice: 350, bundleId: 'B-1' })]),
    invoice('9002', 1, 'CL-1002', 1, [
      line({ quantity: 10, unitPrice: 3.5, itemId: 'P-2', lot: { id: 'LOT-7', name: 'A-2291', expirationDate: day(today, -180) } }),
    ]),
    invoice('9003', 1, 'CL-1001', 4, [
      line({ quantity: 1, unitPrice: 6200, itemId: 'P-3', serial: { id: 'SER-1', number: 'SN-5CG1234XYZ' } }),
      line({ quantity: 1, unitPrice: 250, itemId: 'P-4' }),
    ]),
    invoice('9004', 1, 'CL-1002', 9, [
      line({ quantity: 5, unitPrice: 3.5, itemId: 'P-2', lot: { id: 'LOT-3', name: 'A-1877', expirationDate: day(today, 20) } }),
    ]),
    invoice('9101', 2, 'CL-2001', 2, [line({ quantity: 3, unitPrice: 45, itemId: 'P-1' })]),
  );
  return data;
}
