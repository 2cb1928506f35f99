/** `npm run seed:demo`: loads the demo data into the configured database and prints the logins. */
import { loadConfig } from '../config.js';
import { openPreparedDatabase } from '../db/bootstrap.js';
import { describeDemo, seedDemo } from '../db/demo-seed.js';

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
