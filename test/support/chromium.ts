import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Context } from 'mocha';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (or another Chromium build) on PATH; `DOSSIER_CHROMIUM` names one elsewhere. */
function findChromium(): string | undefined {
  const candidates = process.env.DOSSIER_CHROMIUM
    ? [process.env.DOSSIER_CHROMIUM]
    : (process.env.PATH ?? '')
        .split(delimiter)
        .filter(Boolean)
        .flatMap((dir) => ['chromium', 'chromium-browser', 'google-chrome'].map((name) => join(dir, name)));
  return candidates.find((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Headless Chromium at `executablePath`, asking nothing of the network on its own. */
function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
}

/**
 * Headless Chromium for a suite's `before` hook, which is skipped, saying why, when the machine has none
 * (`.ci/run` installs Debian's).
 */
export async function chromiumOrSkip(context: Context): Promise<Browser> {
  const executablePath = findChromium();
  if (executablePath === undefined) {
    console.log('    (skipped: no chromium on PATH; install it with `apt-get install -y chromium` to run the browser tests)');
    context.skip();
  }
  return launchChromium(executablePath);
}
