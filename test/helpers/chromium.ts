/**
 * Debian's Chromium for the widget's browser tests (`.ci/run` installs the package; playwright-core downloads
 * nothing). The flags keep it off the network this machine does not have (background services, component
 * updates, sync) and run it as root without a sandbox or GPU.
 */
import { existsSync } from 'node:fs';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
