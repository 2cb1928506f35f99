/** Guatemala's departments and municipalities (INE codes), read once from the bundled data file (see data/README.md). */
import { readFileSync } from 'node:fs';

interface GeoFile {
  departments: { code: string; name: string; municipalities: { code: string; name: string }[] }[];
}

const file = JSON.parse(readFileSync(new URL('./data/gt-departments-municipalities.json', import.meta.url), 'utf8')) as GeoFile;

/** Department code → name. */
export const DEPARTMENTS: ReadonlyMap<string, string> = new Map(file.departments.map((d) => [d.code, d.name]));

/** Municipality code → its name and department code. */
export const MUNICIPALITIES: ReadonlyMap<string, { name: string; departmentCode: string }> = new Map(
  file.departments.flatMap((d) => d.municipalities.map((m) => [m.code, { name: m.name, departmentCode: d.code }] as const)),
);
