/** Guatemala's departments and municipalities (INE codes), read once from the bundled data file (see data/README.md). */
// An import (not a file read) so the production build (`npm run build`) carries the data file into dist/.
import data from './data/gt-departments-municipalities.json' with { type: 'json' };

interface GeoFile {
  departments: { code: string; name: string; municipalities: { code: string; name: string }[] }[];
}

const file: GeoFile = data;

/** Department code → name. */
export const DEPARTMENTS: ReadonlyMap<string, string> = new Map(file.departments.map((d) => [d.code, d.name]));

/** Municipality code → its name and department code. */
export const MUNICIPALITIES: ReadonlyMap<string, { name: string; departmentCode: string }> = new Map(
  file.departments.flatMap((d) => d.municipalities.map((m) => [m.code, { name: m.name, departmentCode: d.code }] as const)),
);
