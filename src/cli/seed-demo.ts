/** `npm run seed:demo`: loads the demo data into the configured database and prints the logins. */
import { loadConfig } from '../config.js';
import { openPreparedDatabase } from '../bootstrap/prepare-database.js';
import { describeDemo, seedDemo } from '../bootstrap/demo-seed.js';

try {
  process.loadEnvFile();
} catch {
  // No .env file.
}
const config = loadConfig();
const database = await openPreparedDatabase(config);
try {
  console.log(describeDemo(await seedDemo(database.db)));
} finally {
  await database.close();
}
